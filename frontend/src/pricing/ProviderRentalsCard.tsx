import { useTranslation } from 'react-i18next';
import type { ProviderRentalFieldsFragment } from '../gql/graphql';
import { RentalStateBadge } from '../ui/Badge';
import { isolate, useFormat } from '../ui/format';
import { formatUsdc } from '../ui/usdc';

/**
 * ProviderRentalsCard lists the rentals on the provider's GPUs, running
 * ones first, live: each providerRentalUpdated event replaces its row. The
 * provider sees the machine, the GPUs, the image and the state, never who
 * rents or what environment they gave.
 */
export function ProviderRentalsCard({ rentals, live, events }: { rentals: readonly ProviderRentalFieldsFragment[]; live: boolean; events: number }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  return (
    <section className="card" aria-labelledby="pricing-rentals" data-testid="provider-rentals" data-live={live} data-live-events={events}>
      <h2 id="pricing-rentals">{t('pricing.rentals.title')}</h2>
      <p className="muted">{t('pricing.rentals.lead')}</p>
      {rentals.length === 0 ? (
        <p data-testid="provider-rentals-none">{t('pricing.rentals.none')}</p>
      ) : (
        <table className="data-table stacked-table">
          <caption className="visually-hidden">{t('pricing.rentals.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('pricing.rentals.machine')}</th>
              <th scope="col">{t('pricing.rentals.gpus')}</th>
              <th scope="col">{t('pricing.rentals.image')}</th>
              <th scope="col">{t('pricing.rentals.price')}</th>
              <th scope="col">{t('pricing.rentals.state')}</th>
              <th scope="col">{t('pricing.rentals.time')}</th>
            </tr>
          </thead>
          <tbody>
            {rentals.map((r) => (
              <tr key={r.id} data-testid="provider-rental" data-id={r.id} data-state={r.state} data-hostname={r.hostname}>
                <th scope="row" data-label={t('pricing.rentals.machine')} className="wrap-anywhere">
                  {r.hostname}
                </th>
                <td data-label={t('pricing.rentals.gpus')}>{t('pricing.rentals.gpuCount', { count: r.gpuCount, model: isolate(r.modelKey) })}</td>
                <td data-label={t('pricing.rentals.image')} className="mono wrap-anywhere" dir="ltr">
                  {r.image}
                </td>
                <td data-label={t('pricing.rentals.price')}>{t('pricing.rentals.perHour', { price: isolate(formatUsdc(r.pricePerHour, i18n.language)) })}</td>
                <td data-label={t('pricing.rentals.state')}>
                  <RentalStateBadge state={r.state} cause={r.cause} testId="provider-rental-state" />
                </td>
                <td data-label={t('pricing.rentals.time')}>
                  {r.endedAt
                    ? t('pricing.rentals.ended', { at: f.dateTime(r.endedAt) })
                    : r.startedAt
                      ? t('pricing.rentals.started', { at: f.dateTime(r.startedAt) })
                      : t('pricing.rentals.created', { at: f.dateTime(r.createdAt) })}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
