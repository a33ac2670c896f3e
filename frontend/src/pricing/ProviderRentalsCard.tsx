import { useTranslation } from 'react-i18next';
import type { ProviderRentalFieldsFragment } from '../gql/graphql';
import { RentalStateBadge } from '../ui/Badge';
import { DataTable } from '../ui/DataTable';
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
        <DataTable
          caption={t('pricing.rentals.title')}
          rows={rentals}
          rowKey={(r) => r.id}
          rowProps={(r) => ({ 'data-testid': 'provider-rental', 'data-id': r.id, 'data-state': r.state, 'data-hostname': r.hostname })}
          columns={[
            { key: 'machine', header: t('pricing.rentals.machine'), primary: true, className: 'wrap-anywhere', cell: (r) => <bdi>{r.hostname}</bdi> },
            { key: 'gpus', header: t('pricing.rentals.gpus'), cell: (r) => t('pricing.rentals.gpuCount', { count: r.gpuCount, model: isolate(r.modelKey) }) },
            { key: 'image', header: t('pricing.rentals.image'), className: 'mono wrap-anywhere', cell: (r) => <span dir="ltr">{r.image}</span> },
            { key: 'price', header: t('pricing.rentals.price'), cell: (r) => t('pricing.rentals.perHour', { price: isolate(formatUsdc(r.pricePerHour, i18n.language)) }) },
            { key: 'state', header: t('pricing.rentals.state'), cell: (r) => <RentalStateBadge state={r.state} cause={r.cause} testId="provider-rental-state" /> },
            {
              key: 'time',
              header: t('pricing.rentals.time'),
              cell: (r) =>
                r.endedAt
                  ? t('pricing.rentals.ended', { at: f.dateTime(r.endedAt) })
                  : r.startedAt
                    ? t('pricing.rentals.started', { at: f.dateTime(r.startedAt) })
                    : t('pricing.rentals.created', { at: f.dateTime(r.createdAt) }),
            },
          ]}
        />
      )}
    </section>
  );
}
