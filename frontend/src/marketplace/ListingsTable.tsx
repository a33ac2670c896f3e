import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ListingFieldsFragment } from '../gql/graphql';
import { TierBadge } from '../ui/Badge';
import { DataTable } from '../ui/DataTable';
import { isolate, useFormat } from '../ui/format';
import { formatUsdc } from '../ui/usdc';
import { hoursLeft } from './filters';
import { hostClaim } from './host';

/** placeOf writes a listing's location: city and country, and the datacenter region. */
export function placeOf(location: ListingFieldsFragment['location']): string {
  const cityCountry = [location.city, location.country].filter(Boolean).join(', ');
  return [cityCountry, location.region].filter(Boolean).join(' · ');
}

/** usePercent formats a share (0–1) as a whole percentage in the reader's language. */
function usePercent(): (share: number) => string {
  const { i18n } = useTranslation();
  return useMemo(() => {
    const pct = new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 0 });
    return (share: number) => pct.format(share);
  }, [i18n.language]);
}

/**
 * ListingsTable lists what can be rented now, with what renters compare:
 * the model and its memory, free GPUs, the rate; the performance the
 * platform measured (TFLOPS against the datasheet, and per USDC); the
 * machine's driver and CUDA, CPU cores, RAM and disk size (the provider's
 * own report, said so); its
 * network and disk as the platform's benchmark measured them; reliability,
 * whose parts open under its button; the provider, tier and place; how long
 * it can be rented before its schedule closes and the next maintenance.
 * On a phone each listing is a card (DataTable) with its Rent button last.
 */
export function ListingsTable({ listings, onRent }: { listings: readonly ListingFieldsFragment[]; onRent: (l: ListingFieldsFragment) => void }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const pct = usePercent();
  const now = new Date();
  return (
    <DataTable
      className="listings"
      testId="listings"
      stackBelow="wide"
      caption={t('marketplace.listing.caption')}
      rows={listings}
      rowKey={(l) => l.id}
      rowProps={(l) => ({ 'data-testid': 'listing', 'data-id': l.id, 'data-model': l.modelKey, 'data-gpus': l.gpuCount, 'data-price': l.pricePerHour, 'data-simulated': l.simulated })}
      columns={[
        {
          key: 'model',
          header: t('marketplace.listing.model'),
          primary: true,
          className: 'wrap-anywhere',
          cell: (l) => (
            <>
              <span dir="auto">{l.model?.name ?? l.modelKey}</span>
              {l.vramGb !== null && l.vramGb !== undefined && (
                <span className="listing-sub" data-testid="listing-vram">
                  {t('marketplace.listing.gb', { value: f.number(l.vramGb) })}
                </span>
              )}
              {l.simulated && <span className="status listing-pending simulated-tag">{t('marketplace.listing.simulated')}</span>}
            </>
          ),
        },
        { key: 'free', header: t('marketplace.listing.free'), align: 'end', cellProps: () => ({ 'data-testid': 'listing-free' }), cell: (l) => f.number(l.gpuCount) },
        {
          key: 'price',
          header: t('marketplace.listing.price'),
          align: 'end',
          className: 'nowrap-figure',
          cellProps: () => ({ 'data-testid': 'listing-price' }),
          cell: (l) => t('marketplace.listing.perHour', { price: isolate(formatUsdc(l.pricePerHour, i18n.language)) }),
        },
        {
          key: 'performance',
          header: t('marketplace.listing.performance'),
          cellProps: (l) => ({ 'data-testid': 'listing-performance', 'data-tflops': l.performance?.measuredTflops ?? '' }),
          cell: (l) =>
            l.performance ? (
              <>
                <span>{t('marketplace.listing.tflops', { value: f.number(l.performance.measuredTflops), metric: t(`marketplace.listing.metric.${metricKey(l.performance.metric)}`) })}</span>
                {l.performance.ratio !== null && l.performance.ratio !== undefined && (
                  <span className="listing-sub">{t('marketplace.listing.ofDatasheet', { share: isolate(pct(l.performance.ratio)) })}</span>
                )}
                <span className="listing-sub" data-testid="listing-per-dollar">
                  {t('marketplace.listing.perDollar', { value: f.number(l.performance.tflopsPerDollar) })}
                </span>
              </>
            ) : (
              <span className="muted">{t('marketplace.listing.notMeasured')}</span>
            ),
        },
        {
          key: 'machine',
          header: t('marketplace.listing.machine'),
          className: 'wrap-anywhere',
          cellProps: () => ({ 'data-testid': 'listing-machine' }),
          cell: (l) => (
            <>
              {l.measured ? (
                <>
                  <span className="listing-sub-first">
                    {t('marketplace.listing.network', {
                      down: l.measured.networkDownMbps === null || l.measured.networkDownMbps === undefined ? '—' : f.number(l.measured.networkDownMbps),
                      up: l.measured.networkUpMbps === null || l.measured.networkUpMbps === undefined ? '—' : f.number(l.measured.networkUpMbps),
                    })}
                  </span>
                  <span className="listing-sub">
                    {t('marketplace.listing.disk', {
                      read: l.measured.storageReadMBps === null || l.measured.storageReadMBps === undefined ? '—' : f.number(l.measured.storageReadMBps),
                      write: l.measured.storageWriteMBps === null || l.measured.storageWriteMBps === undefined ? '—' : f.number(l.measured.storageWriteMBps),
                    })}
                  </span>
                  <span className="listing-sub muted">{t('marketplace.listing.measuredByUs')}</span>
                </>
              ) : (
                <span className="muted">{t('marketplace.listing.notMeasured')}</span>
              )}
              {(l.driverVersion || l.cudaVersion || l.cpuCores || l.ramBytes || l.diskBytes || l.cpuModel) && (
                <>
                  {(l.driverVersion || l.cudaVersion) && (
                    <span className="listing-sub" dir="ltr">
                      {t('marketplace.listing.driver', { driver: l.driverVersion ?? '—', cuda: l.cudaVersion ?? '—' })}
                    </span>
                  )}
                  {(l.cpuCores || l.ramBytes || l.diskBytes) && (
                    <span className="listing-sub" data-testid="listing-host">
                      {hostClaim(l, t, i18n.language)}
                    </span>
                  )}
                  {l.cpuModel && (
                    <span className="listing-sub" dir="ltr" data-testid="listing-cpu-model">
                      {l.cpuModel}
                    </span>
                  )}
                  <span className="listing-sub muted">{t('marketplace.listing.providerSays')}</span>
                </>
              )}
            </>
          ),
        },
        {
          key: 'reliability',
          header: t('marketplace.listing.reliability'),
          cellProps: (l) => ({ 'data-testid': 'listing-reliability', 'data-score': l.reliabilityScore ?? '' }),
          cell: (l) => <ReliabilityCell listing={l} />,
        },
        {
          key: 'provider',
          header: t('marketplace.listing.provider'),
          className: 'wrap-anywhere',
          cellProps: () => ({ 'data-testid': 'listing-provider' }),
          cell: (l) => (
            <>
              <span dir="auto">{l.providerName}</span> <TierBadge tier={l.tier} />
              <span className="listing-sub" dir="auto">
                {placeOf(l.location) || t('marketplace.listing.none')}
              </span>
            </>
          ),
        },
        {
          key: 'available',
          header: t('marketplace.listing.available'),
          cellProps: () => ({ 'data-testid': 'listing-available' }),
          cell: (l) => {
            const hours = hoursLeft(l.scheduleClosesAt, now);
            return (
              <>
                <span>{hours === null ? t('marketplace.listing.noClose') : t('marketplace.listing.closesIn', { hours: f.number(hours), at: f.dateTime(l.scheduleClosesAt ?? '') })}</span>
                {l.nextMaintenanceAt ? <span className="listing-sub">{t('marketplace.listing.maintenanceAt', { at: f.dateTime(l.nextMaintenanceAt) })}</span> : null}
              </>
            );
          },
        },
        {
          key: 'rent',
          header: t('common.actions'),
          actions: true,
          cell: (l) => (
            <button type="button" className="button primary small" onClick={() => onRent(l)} data-testid="listing-rent">
              {t('marketplace.listing.rent')}
            </button>
          ),
        },
      ]}
    />
  );
}

/** metricKey is the translation key of a benchmark metric the listing compares. */
function metricKey(metric: string): 'TENSOR_BF16_TFLOPS' | 'TENSOR_FP16_TFLOPS' | 'FP32_TFLOPS' {
  return metric === 'TENSOR_BF16_TFLOPS' || metric === 'TENSOR_FP16_TFLOPS' ? metric : 'FP32_TFLOPS';
}

/**
 * ReliabilityCell is a listing's reliability: a new provider's "new", or
 * its score as a button that opens the score's parts below it (a
 * disclosure: it works by tap and keyboard, not on hover only).
 */
function ReliabilityCell({ listing }: { listing: ListingFieldsFragment }) {
  const { t } = useTranslation();
  const f = useFormat();
  const pct = usePercent();
  const [open, setOpen] = useState(false);
  const id = useId();
  if (listing.reliabilityScore === null || listing.reliabilityScore === undefined) {
    // A listing without a score yet is a new provider's: said so, not left blank.
    return <span className="status reliability-new">{t('marketplace.listing.reliabilityNew')}</span>;
  }
  const badge = t('marketplace.listing.reliabilityBadge', { score: f.number(listing.reliabilityScore) });
  const parts = listing.reliabilityParts;
  if (!parts) return <span className="status reliability-badge">{badge}</span>;
  return (
    <>
      <button
        type="button"
        className="status reliability-badge reliability-toggle"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        data-testid="listing-reliability-toggle"
      >
        {badge}
      </button>
      {open && (
        <dl id={id} className="reliability-parts" data-testid="listing-reliability-parts">
          <dt>{t('marketplace.listing.parts.uptime')}</dt>
          <dd>{pct(parts.uptime)}</dd>
          <dt>{t('marketplace.listing.parts.completion')}</dt>
          <dd>{pct(parts.completion)}</dd>
          <dt>{t('marketplace.listing.parts.consistency')}</dt>
          <dd>{pct(parts.consistency)}</dd>
        </dl>
      )}
    </>
  );
}
