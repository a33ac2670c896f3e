import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { useQuery } from 'urql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import { costOf, formatUsdc } from '../ui/usdc';
import { Duration } from './RentalPage';
import { RentalQuery } from './operations';
import { isEnded } from './rentals';
import './receipt.css';

/**
 * ReceiptPage is a printable receipt of one rental (/rentals/:id/receipt):
 * what ran, where, when, the rate, the billed time, the charge and any
 * refund, from the same query as the rental's page. Its print stylesheet
 * hides the app's frame, so the browser's Print gives the receipt alone.
 */
export function ReceiptPage() {
  const { id = '' } = useParams();
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const f = useFormat();
  const [res, refetch] = useQuery({ query: RentalQuery, variables: { id }, requestPolicy: 'network-only' });
  if (res.error && !res.data) return <ErrorNotice error={res.error} onRetry={() => refetch()} />;
  if (!res.data) return <Loading />;
  const rental = res.data.rental;
  if (!rental) {
    return (
      <section className="card narrow" data-testid="rental-not-found">
        <h1>{t('rentals.notFound.title')}</h1>
        <p>{t('rentals.notFound.body')}</p>
      </section>
    );
  }
  const model = rental.model?.name ?? rental.modelKey;
  return (
    <section className="page receipt" data-testid="receipt-page" data-id={rental.id} data-charged={rental.charged}>
      <div className="receipt-actions no-print">
        <Link to={`/rentals/${rental.id}`} className="back">
          {t('rentals.receipt.back')}
        </Link>
        <button type="button" className="button primary" onClick={() => window.print()} data-testid="receipt-print">
          {t('rentals.receipt.print')}
        </button>
      </div>
      <article className="card receipt-sheet">
        <header>
          <h1>{t('rentals.receipt.title', { id: rental.id })}</h1>
          <p className="muted">{isEnded(rental.state) ? t('rentals.receipt.final') : t('rentals.receipt.running')}</p>
        </header>
        <dl className="facts">
          <dt>{t('rentals.field.rental')}</dt>
          <dd>{t('rentals.gpus', { count: rental.gpuCount, model: isolate(model) })}</dd>
          <dt>{t('rentals.field.image')}</dt>
          <dd className="mono wrap-anywhere" dir="ltr">
            {rental.image}
          </dd>
          {rental.startedAt && (
            <>
              <dt>{t('rentals.field.started')}</dt>
              <dd>{f.dateTime(rental.startedAt)}</dd>
            </>
          )}
          {rental.endedAt && (
            <>
              <dt>{t('rentals.field.ended')}</dt>
              <dd>{f.dateTime(rental.endedAt)}</dd>
            </>
          )}
          {rental.end && (
            <>
              <dt>{t('rentals.receipt.end')}</dt>
              <dd>{t(`rentals.end.${rental.end}`)}</dd>
            </>
          )}
          <dt>{t('rentals.cost.rate')}</dt>
          <dd>
            {t('rentals.cost.rateTotal', {
              gpus: f.number(rental.gpuCount),
              price: isolate(formatUsdc(rental.pricePerHour, lng)),
              total: isolate(formatUsdc(costOf(rental.pricePerHour, rental.gpuCount, 3600), lng)),
            })}
          </dd>
          <dt>{t('rentals.cost.billed')}</dt>
          <dd data-testid="receipt-billed">
            <Duration seconds={rental.billedSeconds} /> ({t('rentals.receipt.seconds', { n: f.number(rental.billedSeconds) })})
          </dd>
          <dt>{t('rentals.cost.refunded')}</dt>
          <dd>{t('rentals.cost.usdc', { amount: isolate(formatUsdc(rental.refunded, lng)) })}</dd>
          <dt className="receipt-total">{isEnded(rental.state) ? t('rentals.cost.final') : t('rentals.cost.charged')}</dt>
          <dd className="receipt-total" data-testid="receipt-charged">
            {t('rentals.cost.usdc', { amount: isolate(formatUsdc(rental.charged, lng)) })}
          </dd>
        </dl>
        <p className="muted small">{t('rentals.receipt.note')}</p>
      </article>
    </section>
  );
}
