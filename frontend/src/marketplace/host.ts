import type { TFunction } from 'i18next';
import { GIB } from '../overview/format';

/** TB and GB are the bytes in a terabyte and a gigabyte: disks are sold in decimal units. */
export const TB = 1e12;
export const GB = 1e9;

/** HostFigures are what a listing says of its machine's host (the provider's claim). */
export interface HostFigures {
  cpuCores?: number | null;
  ramBytes?: number | null;
  diskBytes?: number | null;
  /** diskFreeBytes is the free space at registration; the provider's own card shows it. */
  diskFreeBytes?: number | null;
}

/**
 * hostClaim writes the host's CPU cores, RAM (GiB, as the Overview writes
 * memory) and disk size (TB, or GB under a terabyte, as disks are sold) in the reader's language,
 * "CPU cores: 192 · RAM: 1,536 GiB · Disk: 7.7 TB", leaving out what the
 * agent did not report; '' when it reported none (an agent before issue 26).
 * With the free space too (the provider's own machine card), the disk reads
 * "Disk: 6.1 TB free of 7.7 TB".
 */
export function hostClaim(host: HostFigures, t: TFunction, lng: string): string {
  const whole = new Intl.NumberFormat(lng, { maximumFractionDigits: 0 });
  const oneDecimal = new Intl.NumberFormat(lng, { maximumFractionDigits: 1 });
  const parts: string[] = [];
  if (host.cpuCores !== null && host.cpuCores !== undefined) {
    parts.push(t('marketplace.listing.cpu', { cores: whole.format(host.cpuCores) }));
  }
  if (host.ramBytes !== null && host.ramBytes !== undefined) {
    const gib = host.ramBytes / GIB;
    const ram = t('overview.units.gib', { value: (gib < 100 ? oneDecimal : whole).format(gib) });
    parts.push(t('marketplace.listing.ram', { ram }));
  }
  const disk = host.diskBytes;
  if (disk !== null && disk !== undefined) {
    // Disks are sold in decimal units: TB from one terabyte, GB under it
    // (the free space in the disk's unit).
    const size = (bytes: number) =>
      disk >= TB ? t('overview.units.tb', { value: oneDecimal.format(bytes / TB) }) : t('overview.units.gb', { value: whole.format(bytes / GB) });
    if (host.diskFreeBytes !== null && host.diskFreeBytes !== undefined) {
      parts.push(t('marketplace.listing.diskFree', { free: size(host.diskFreeBytes), total: size(disk) }));
    } else {
      parts.push(t('marketplace.listing.diskSize', { size: size(disk) }));
    }
  }
  return parts.join(' · ');
}
