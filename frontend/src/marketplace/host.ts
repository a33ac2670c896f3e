import type { TFunction } from 'i18next';
import { GIB } from '../overview/format';

/** TB is the bytes in a terabyte: disks are sold in decimal units. */
export const TB = 1e12;

/** HostFigures are what a listing says of its machine's host (the provider's claim). */
export interface HostFigures {
  cpuCores?: number | null;
  ramBytes?: number | null;
  diskBytes?: number | null;
}

/**
 * hostClaim writes the host's CPU cores, RAM (GiB, as the Overview writes
 * memory) and disk size (TB, as disks are sold) in the reader's language,
 * "CPU cores: 192 · RAM: 1,536 GiB · Disk: 7.7 TB", leaving out what the
 * agent did not report; '' when it reported none (an agent before issue 26).
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
  if (host.diskBytes !== null && host.diskBytes !== undefined) {
    parts.push(t('marketplace.listing.diskSize', { value: oneDecimal.format(host.diskBytes / TB) }));
  }
  return parts.join(' · ');
}
