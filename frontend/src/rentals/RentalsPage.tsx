import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { FundsSummary } from '../funds/FundsSummary';
import { useFunds } from '../funds/useFunds';
import { RentalStateBadge } from '../ui/Badge';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import { formatUsdc } from '../ui/usdc';
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

  if (!view.loaded && view.error) return <ErrorNotice error={view.error} onRetry={view.refresh} />;
  if (!view.loaded) return <Loading />;

  return (
    <section className="page rentals" data-testid="rentals-page" data-live={view.live} data-rentals={view.rentals.length}>
      <header className="page-head">
        <h1>{t('rentals.title')}</h1>
        <p className="lead">{t('rentals.lead')}</p>
      </header>
      <FundsSummary view={funds} />
      {view.error && <ErrorNotice error={view.error} />}
      {view.rentals.length === 0 ? (
        <section className="card" data-testid="rentals-empty">
          <p>{t('rentals.empty')}</p>
          <Link to="/marketplace" className="button primary">
            {t('rentals.browse')}
          </Link>
        </section>
      ) : (
        <table className="data-table stacked-table rentals-table">
          <caption className="visually-hidden">{t('rentals.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('rentals.field.rental')}</th>
              <th scope="col">{t('rentals.field.state')}</th>
              <th scope="col">{t('rentals.field.image')}</th>
              <th scope="col">{t('rentals.field.price')}</th>
              <th scope="col">{t('rentals.field.when')}</th>
            </tr>
          </thead>
          <tbody>
            {view.rentals.map((r) => (
              <tr key={r.id} data-testid="rental-row" data-id={r.id} data-state={r.state}>
                <th scope="row" data-label={t('rentals.field.rental')}>
                  <Link to={`/rentals/${r.id}`} data-testid="rental-link">
                    {t('rentals.gpus', { count: r.gpuCount, model: isolate(r.model?.name ?? r.modelKey) })}
                  </Link>
                </th>
                <td data-label={t('rentals.field.state')}>
                  <RentalStateBadge state={r.state} cause={r.cause} testId="rental-state" />
                </td>
                <td data-label={t('rentals.field.image')} className="mono wrap-anywhere" dir="ltr">
                  {r.image}
                </td>
                <td data-label={t('rentals.field.price')}>{t('rentals.perHour', { price: isolate(formatUsdc(r.pricePerHour, i18n.language)) })}</td>
                <td data-label={t('rentals.field.when')}>
                  {r.endedAt ? t('rentals.ended', { at: f.dateTime(r.endedAt) }) : r.startedAt ? t('rentals.started', { at: f.dateTime(r.startedAt) }) : t('rentals.created', { at: f.dateTime(r.createdAt) })}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {view.hasMore && (
        <button type="button" className="button" onClick={view.loadMore} disabled={view.fetching} data-testid="rentals-more">
          {t('rentals.more')}
        </button>
      )}
    </section>
  );
}
