import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useQuery } from 'urql';
import { FundsSummary } from '../funds/FundsSummary';
import { useFunds } from '../funds/useFunds';
import { RentalStateBadge } from '../ui/Badge';
import { DataTable } from '../ui/DataTable';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import { formatUsdc } from '../ui/usdc';
import { RentalsMonthTotalQuery } from './operations';
import './rentals.css';
import { useRentals } from './useRentals';

/**
 * RentalsPage lists the customer's rentals, newest first, each state live
 * over rentalUpdated, each linking to its page (log, stop), under the
 * customer's prepaid balance.
 */
export function RentalsPage() {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const view = useRentals();
  const funds = useFunds();
  // Refetched with the list's live events, so the month's total follows the meter.
  const [month, refetchMonth] = useQuery({ query: RentalsMonthTotalQuery, requestPolicy: 'cache-and-network' });
  const charges = view.rentals.map((r) => r.charged).join(',');
  useEffect(() => {
    refetchMonth({ requestPolicy: 'network-only' });
  }, [charges, refetchMonth]);
  const total = month.data?.myRentalsMonthTotal;

  if (!view.loaded && view.error) return <ErrorNotice error={view.error} onRetry={view.refresh} />;
  if (!view.loaded) return <Loading />;

  return (
    <section className="page rentals" data-testid="rentals-page" data-live={view.live} data-rentals={view.rentals.length}>
      <header className="page-head">
        <h1>{t('rentals.title')}</h1>
        <p className="lead">{t('rentals.lead')}</p>
      </header>
      <FundsSummary view={funds} />
      {total && (
        <p className="card month-total" data-testid="rentals-month-total" data-charged={total.charged}>
          {t('rentals.monthTotal', {
            month: isolate(new Intl.DateTimeFormat(i18n.language, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(total.monthStart))),
            amount: isolate(formatUsdc(total.charged, i18n.language)),
          })}{' '}
          <Link to="/statement" data-testid="rentals-statement-link">
            {t('statement.open')}
          </Link>
        </p>
      )}
      {view.error && <ErrorNotice error={view.error} />}
      {view.rentals.length === 0 ? (
        <section className="card" data-testid="rentals-empty">
          <p>{t('rentals.empty')}</p>
          <Link to="/marketplace" className="button primary">
            {t('rentals.browse')}
          </Link>
        </section>
      ) : (
        <DataTable
          className="rentals-table"
          caption={t('rentals.title')}
          rows={view.rentals}
          rowKey={(r) => r.id}
          rowProps={(r) => ({ 'data-testid': 'rental-row', 'data-id': r.id, 'data-state': r.state })}
          columns={[
            {
              key: 'rental',
              header: t('rentals.field.rental'),
              primary: true,
              cell: (r) => (
                <Link to={`/rentals/${r.id}`} data-testid="rental-link">
                  {t('rentals.gpus', { count: r.gpuCount, model: isolate(r.model?.name ?? r.modelKey) })}
                </Link>
              ),
            },
            { key: 'state', header: t('rentals.field.state'), cell: (r) => <RentalStateBadge state={r.state} cause={r.cause} testId="rental-state" /> },
            {
              key: 'image',
              header: t('rentals.field.image'),
              className: 'mono wrap-anywhere',
              cell: (r) => <span dir="ltr">{r.image}</span>,
            },
            { key: 'price', header: t('rentals.field.price'), cell: (r) => t('rentals.perHour', { price: isolate(formatUsdc(r.pricePerHour, i18n.language)) }) },
            {
              key: 'cost',
              header: t('rentals.field.cost'),
              cell: (r) => <span data-testid="rental-row-cost">{t('rentals.cost.usdc', { amount: isolate(formatUsdc(r.charged, i18n.language)) })}</span>,
            },
            {
              key: 'when',
              header: t('rentals.field.when'),
              cell: (r) =>
                r.endedAt ? t('rentals.ended', { at: f.dateTime(r.endedAt) }) : r.startedAt ? t('rentals.started', { at: f.dateTime(r.startedAt) }) : t('rentals.created', { at: f.dateTime(r.createdAt) }),
            },
          ]}
        />
      )}
      {view.hasMore && (
        <button type="button" className="button" onClick={view.loadMore} disabled={view.fetching} data-testid="rentals-more">
          {t('rentals.more')}
        </button>
      )}
    </section>
  );
}
