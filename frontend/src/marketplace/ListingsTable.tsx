import { useTranslation } from 'react-i18next';
import type { ListingFieldsFragment } from '../gql/graphql';
import { TierBadge } from '../ui/Badge';
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
 * block of labelled lines (stacked-table).
 */
export function ListingsTable({ listings, onRent }: { listings: readonly ListingFieldsFragment[]; onRent: (l: ListingFieldsFragment) => void }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const none = <span className="muted">{t('marketplace.listing.none')}</span>;
  return (
    <table className="data-table stacked-table listings" data-testid="listings">
      <caption className="visually-hidden">{t('marketplace.listing.caption')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('marketplace.listing.model')}</th>
          <th scope="col">{t('marketplace.listing.free')}</th>
          <th scope="col">{t('marketplace.listing.vram')}</th>
          <th scope="col">{t('marketplace.listing.price')}</th>
          <th scope="col">{t('marketplace.listing.performance')}</th>
          <th scope="col">{t('marketplace.listing.reliability')}</th>
          <th scope="col">{t('marketplace.listing.tier')}</th>
          <th scope="col">{t('marketplace.listing.location')}</th>
          <th scope="col">{t('marketplace.listing.maintenance')}</th>
          <th scope="col">
            <span className="visually-hidden">{t('common.actions')}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {listings.map((l) => (
          <tr key={l.id} data-testid="listing" data-id={l.id} data-model={l.modelKey} data-gpus={l.gpuCount} data-price={l.pricePerHour} data-simulated={l.simulated}>
            <th scope="row" data-label={t('marketplace.listing.model')} className="wrap-anywhere">
              <span dir="auto">{l.model?.name ?? l.modelKey}</span>
              {l.simulated && <span className="status listing-pending simulated-tag">{t('marketplace.listing.simulated')}</span>}
            </th>
            <td data-label={t('marketplace.listing.free')} data-testid="listing-free">
              {f.number(l.gpuCount)}
            </td>
            <td data-label={t('marketplace.listing.vram')}>{l.vramGb === null || l.vramGb === undefined ? none : t('marketplace.listing.gb', { value: f.number(l.vramGb) })}</td>
            <td data-label={t('marketplace.listing.price')} data-testid="listing-price" className="nowrap-figure">
              {t('marketplace.listing.perHour', { price: isolate(formatUsdc(l.pricePerHour, i18n.language)) })}
            </td>
            <td data-label={t('marketplace.listing.performance')}>{l.performanceScore === null || l.performanceScore === undefined ? none : f.number(l.performanceScore)}</td>
            <td data-label={t('marketplace.listing.reliability')} data-testid="listing-reliability" data-score={l.reliabilityScore ?? ''}>
              {/* A listing without a score yet is a new provider's: said so, not left blank. */}
              {l.reliabilityScore === null || l.reliabilityScore === undefined ? (
                <span className="status reliability-new">{t('marketplace.listing.reliabilityNew')}</span>
              ) : (
                <span className="status reliability-badge">{t('marketplace.listing.reliabilityBadge', { score: f.number(l.reliabilityScore) })}</span>
              )}
            </td>
            <td data-label={t('marketplace.listing.tier')}>
              <TierBadge tier={l.tier} />
            </td>
            <td data-label={t('marketplace.listing.location')} className="wrap-anywhere" dir="auto">
              {placeOf(l.location) || none}
            </td>
            <td data-label={t('marketplace.listing.maintenance')}>{l.nextMaintenanceAt ? f.dateTime(l.nextMaintenanceAt) : none}</td>
            <td>
              <button type="button" className="button primary small" onClick={() => onRent(l)} data-testid="listing-rent">
                {t('marketplace.listing.rent')}
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
