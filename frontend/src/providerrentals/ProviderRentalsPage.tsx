import { useTranslation } from 'react-i18next';
import { useSession } from '../account/session';
import type { ProviderRentalFieldsFragment } from '../gql/graphql';
import { durationParts } from '../rentals/cost';
import { ForbiddenPage } from '../shell/ForbiddenPage';
import { RentalStateBadge } from '../ui/Badge';
import { DataTable } from '../ui/DataTable';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import { formatUsdc } from '../ui/usdc';
import { useNow } from '../ui/useNow';
import { elapsedSeconds } from './rentals';
import { useProviderRentals } from './useProviderRentals';

/**
 * ProviderRentalsPage is a provider's Rentals section: the rentals on its
 * GPUs, running ones first, live. Each names the machine, the model by its
 * display name and the GPUs by their index on it, the state a customer
 * sees, when it started, how long it has run (ticking) and what it has
 * earned the provider so far (growing with each metering tick). Never who
 * rents or what environment they gave.
 */
export function ProviderRentalsPage() {
  const { user } = useSession();
  if (!user?.roles.includes('PROVIDER')) return <ForbiddenPage role="PROVIDER" />;
  return <ProviderRentals />;
}

function ProviderRentals() {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const view = useProviderRentals();
  const now = useNow(1000);

  if (view.providerId === undefined && view.error) return <ErrorNotice error={view.error} onRetry={view.refresh} />;
  if (view.providerId === undefined) return <Loading />;
  if (view.providerId === null) return <ForbiddenPage role="PROVIDER" />;

  const running = view.rentals.filter((r) => r.state === 'RUNNING').length;
  const elapsed = (r: ProviderRentalFieldsFragment) => {
    const p = durationParts(elapsedSeconds(r, now));
    return t('providerRentals.elapsed', { h: f.number(p.h), m: f.number(p.m), s: f.number(p.s) });
  };
  return (
    <section className="page" data-testid="provider-rentals-page">
      <header className="page-head">
        <h1>{t('providerRentals.title')}</h1>
        <p className="lead">{t('providerRentals.lead')}</p>
      </header>
      {view.error && <ErrorNotice error={view.error} />}
      <section className="card" aria-labelledby="provider-rentals-list" data-testid="provider-rentals" data-live={view.live} data-live-events={view.events}>
        <h2 id="provider-rentals-list">{t('providerRentals.running', { count: running })}</h2>
        {view.rentals.length === 0 ? (
          <p data-testid="provider-rentals-none">{t('providerRentals.none')}</p>
        ) : (
          <DataTable
            caption={t('providerRentals.title')}
            rows={view.rentals}
            rowKey={(r) => r.id}
            rowProps={(r) => ({ 'data-testid': 'provider-rental', 'data-id': r.id, 'data-state': r.state, 'data-hostname': r.hostname, 'data-earned': r.earned })}
            columns={[
              {
                key: 'gpus',
                header: t('providerRentals.gpus'),
                primary: true,
                cell: (r) => (
                  <>
                    <span data-testid="provider-rental-model">{t('providerRentals.gpuCount', { count: r.gpuCount, model: isolate(r.model?.name ?? r.modelKey) })}</span>
                    <span className="muted small" data-testid="provider-rental-gpus">
                      {' · '}
                      <bdi>{r.hostname}</bdi>{' '}
                      {t('providerRentals.indexes', { indexes: r.gpuIndexes.map((i) => f.number(i)).join(', ') })}
                    </span>
                  </>
                ),
              },
              { key: 'state', header: t('providerRentals.state'), cell: (r) => <RentalStateBadge state={r.state} cause={r.cause} testId="provider-rental-state" /> },
              {
                key: 'started',
                header: t('providerRentals.started'),
                cell: (r) => (r.startedAt ? f.dateTime(r.startedAt) : <span className="muted">{t('providerRentals.notStarted')}</span>),
              },
              { key: 'elapsed', header: t('providerRentals.elapsedHeader'), cellProps: () => ({ 'data-testid': 'provider-rental-elapsed' }), cell: elapsed },
              {
                key: 'earned',
                header: t('providerRentals.earned'),
                cellProps: () => ({ 'data-testid': 'provider-rental-earned' }),
                cell: (r) => t('providerRentals.usdc', { amount: isolate(formatUsdc(r.earned, i18n.language)) }),
              },
              { key: 'price', header: t('providerRentals.price'), cell: (r) => t('providerRentals.perHour', { price: isolate(formatUsdc(r.pricePerHour, i18n.language)) }) },
              { key: 'image', header: t('providerRentals.image'), className: 'mono wrap-anywhere', cell: (r) => <span dir="ltr">{r.image}</span> },
            ]}
          />
        )}
        <p className="muted small" role="status">
          {view.live ? t('providerRentals.live') : t('providerRentals.connecting')}
        </p>
      </section>
    </section>
  );
}
