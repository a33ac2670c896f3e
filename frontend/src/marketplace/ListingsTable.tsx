import { useTranslation } from 'react-i18next';
import type { ListingFieldsFragment } from '../gql/graphql';
import { TierBadge } from '../ui/Badge';
import { DataTable } from '../ui/DataTable';
import { isolate, useFormat } from '../ui/format';
import { formatUsdc } from '../ui/usdc';

/** placeOf writes a listing's location: city and country, and the datacenter region. */
export function placeOf(location: ListingFieldsFragment['location']): string {
  const cityCountry = [location.city, location.country].filter(Boolean).join(', ');
  return [cityCountry, location.region].filter(Boolean).join(' · ');
}

/**
 * ListingsTable lists what can be rented now: model, free GPUs, memory,
 * rate, performance and reliability, tier, place and the next planned
 * maintenance, each row with a Rent button. On a phone each listing is a
 * card (DataTable) with its Rent button last.
 */
export function ListingsTable({ listings, onRent }: { listings: readonly ListingFieldsFragment[]; onRent: (l: ListingFieldsFragment) => void }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const none = <span className="muted">{t('marketplace.listing.none')}</span>;
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
              {l.simulated && <span className="status listing-pending simulated-tag">{t('marketplace.listing.simulated')}</span>}
            </>
          ),
        },
        { key: 'free', header: t('marketplace.listing.free'), align: 'end', cellProps: () => ({ 'data-testid': 'listing-free' }), cell: (l) => f.number(l.gpuCount) },
        {
          key: 'vram',
          header: t('marketplace.listing.vram'),
          align: 'end',
          cell: (l) => (l.vramGb === null || l.vramGb === undefined ? none : t('marketplace.listing.gb', { value: f.number(l.vramGb) })),
        },
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
          align: 'end',
          cell: (l) => (l.performanceScore === null || l.performanceScore === undefined ? none : f.number(l.performanceScore)),
        },
        {
          key: 'reliability',
          header: t('marketplace.listing.reliability'),
          cellProps: (l) => ({ 'data-testid': 'listing-reliability', 'data-score': l.reliabilityScore ?? '' }),
          // A listing without a score yet is a new provider's: said so, not left blank.
          cell: (l) =>
            l.reliabilityScore === null || l.reliabilityScore === undefined ? (
              <span className="status reliability-new">{t('marketplace.listing.reliabilityNew')}</span>
            ) : (
              <span className="status reliability-badge">{t('marketplace.listing.reliabilityBadge', { score: f.number(l.reliabilityScore) })}</span>
            ),
        },
        { key: 'tier', header: t('marketplace.listing.tier'), cell: (l) => <TierBadge tier={l.tier} /> },
        {
          key: 'location',
          header: t('marketplace.listing.location'),
          className: 'wrap-anywhere',
          cellProps: () => ({ dir: 'auto' }),
          cell: (l) => placeOf(l.location) || none,
        },
        { key: 'maintenance', header: t('marketplace.listing.maintenance'), cell: (l) => (l.nextMaintenanceAt ? f.dateTime(l.nextMaintenanceAt) : none) },
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
