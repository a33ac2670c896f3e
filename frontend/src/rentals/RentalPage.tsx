import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { useClient, useMutation, type CombinedError } from 'urql';
import type { RentalFieldsFragment, RentalQuery as RentalResult } from '../gql/graphql';
import { useFunds } from '../funds/useFunds';
import { RentalStateBadge } from '../ui/Badge';
import { Bar } from '../ui/Bar';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate, useFormat } from '../ui/format';
import { FieldErrorText } from '../ui/FormField';
import { Loading } from '../ui/Loading';
import { useNow } from '../ui/useNow';
import { costOf, formatUsdc, sameUsdc } from '../ui/usdc';
import { durationParts, estimateNow, exitMeaning, meterFill } from './cost';
import { RentalQuery, RentalUpdatedSubscription, StopRentalMutation } from './operations';
import { canStop, followLog, isBehind, isEnded } from './rentals';
import './rentals.css';

type Rental = NonNullable<RentalResult['rental']>;

/**
 * RentalPage is one rental: its state and cause, what runs (image, command,
 * environment names), the rate, its times, the log tail live over
 * rentalUpdated(id), and Stop after a confirmation.
 */
export function RentalPage() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const client = useClient();
  const [rental, setRental] = useState<Rental | null | undefined>(undefined);
  const [error, setError] = useState<CombinedError | undefined>(undefined);
  const [events, setEvents] = useState(0);
  const [answers, setAnswers] = useState(0);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let cancelled = false;
    void client
      .query(RentalQuery, { id }, { requestPolicy: 'network-only' })
      .toPromise()
      .then((res) => {
        if (cancelled) return;
        setError(res.error);
        // A live event may have come first: keep the one that is further
        // along, and an ended one (its charge may be newer than this answer).
        const got = res.data?.rental ?? null;
        if (res.data) setRental((prev) => (prev && (isEnded(prev.state) || (got && isBehind(prev, got))) ? prev : got));
      });
    const { unsubscribe } = client.subscription(RentalUpdatedSubscription, { id }).subscribe((result) => {
      if (result.error) setError(result.error);
      const next = result.data?.rentalUpdated;
      if (!next) return;
      setEvents((n) => n + 1);
      setRental((prev) => (prev && isBehind(prev, next) ? prev : next));
    });
    return () => {
      cancelled = true;
      unsubscribe();
    };
  }, [client, id, attempt]);

  if (rental === undefined && error) return <ErrorNotice error={error} onRetry={() => setAttempt((n) => n + 1)} />;
  if (rental === undefined) return <Loading />;
  if (rental === null) {
    return (
      <section className="card narrow" data-testid="rental-not-found">
        <h1>{t('rentals.notFound.title')}</h1>
        <p>{t('rentals.notFound.body')}</p>
        <Link to="/rentals" className="button">
          {t('rentals.back')}
        </Link>
      </section>
    );
  }
  // stopRental answers without the log: keep the one shown until the next
  // event. The event that the agent has stopped it may have come first (on
  // a busy machine it did, and the page stayed Stopping): keep that one.
  const onStopped = (next: RentalFieldsFragment) => {
    setAnswers((n) => n + 1);
    setRental((prev) => (prev && isBehind(prev, next) ? prev : { ...next, logTail: prev?.logTail ?? null }));
  };
  return <RentalDetails rental={rental} events={events} answers={answers} error={error} onStopped={onStopped} />;
}

function RentalDetails({
  rental,
  events,
  answers,
  error,
  onStopped,
}: {
  rental: Rental;
  events: number;
  answers: number;
  error: CombinedError | undefined;
  onStopped: (r: RentalFieldsFragment) => void;
}) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const place = [rental.location.city, rental.location.country, rental.location.region].filter(Boolean).join(', ');
  return (
    <section className="page rental" data-testid="rental-page" data-id={rental.id} data-state={rental.state} data-live-events={events} data-stop-answers={answers}>
      <Link to="/rentals" className="back">
        {t('rentals.back')}
      </Link>
      <header className="page-head rental-head">
        <h1>{t('rentals.gpus', { count: rental.gpuCount, model: isolate(rental.model?.name ?? rental.modelKey) })}</h1>
        <RentalStateBadge state={rental.state} cause={rental.cause} testId="rental-state" />
      </header>
      {error && <ErrorNotice error={error} />}
      {rental.message && (
        <p className={`notice ${rental.state === 'FAILED' || rental.state === 'INTERRUPTED' ? 'error' : 'info'}`} data-testid="rental-message" dir="auto">
          {rental.message}
        </p>
      )}
      <div className="card">
        <dl className="facts">
          <dt>{t('rentals.field.image')}</dt>
          <dd className="mono wrap-anywhere" dir="ltr">
            {rental.image}
          </dd>
          <dt>{t('rentals.field.command')}</dt>
          <dd className="mono wrap-anywhere" dir="ltr" data-testid="rental-command">
            {rental.command.length > 0 ? rental.command.map((a) => (/[\s'"]/.test(a) || a === '' ? JSON.stringify(a) : a)).join(' ') : <span className="muted">{t('rentals.imageDefault')}</span>}
          </dd>
          <dt>{t('rentals.field.env')}</dt>
          <dd className="mono wrap-anywhere" dir="ltr">
            {rental.envNames.length > 0 ? rental.envNames.join(', ') : <span className="muted">{t('rentals.none')}</span>}
          </dd>
          <dt>{t('rentals.field.price')}</dt>
          <dd>{t('rentals.perHour', { price: isolate(formatUsdc(rental.pricePerHour, i18n.language)) })}</dd>
          <dt>{t('rentals.field.place')}</dt>
          <dd dir="auto">{place || <span className="muted">{t('rentals.none')}</span>}</dd>
          <dt>{t('rentals.field.created')}</dt>
          <dd>{f.dateTime(rental.createdAt)}</dd>
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
          {rental.endsBy && (
            <>
              <dt>{t('rentals.field.endsBy')}</dt>
              <dd>{f.dateTime(rental.endsBy)}</dd>
            </>
          )}
          {rental.exitCode !== null && rental.exitCode !== undefined && (
            <>
              <dt>{t('rentals.field.exitCode')}</dt>
              <dd data-testid="rental-exit-code" data-meaning={exitMeaning(rental.exitCode)}>
                {t(`rentals.exit.${exitMeaning(rental.exitCode)}`, { code: f.number(rental.exitCode) })}
              </dd>
            </>
          )}
        </dl>
        {canStop(rental.state) && <StopButton id={rental.id} onStopped={onStopped} />}
      </div>
      <CostCard rental={rental} />
      <LogTail text={rental.logTail ?? ''} />
    </section>
  );
}

/** Duration writes whole seconds as hours, minutes and seconds. */
export function Duration({ seconds }: { seconds: number }) {
  const { t } = useTranslation();
  const f = useFormat();
  const p = durationParts(seconds);
  return <>{t('rentals.cost.duration', { h: f.number(p.h), m: f.number(p.m), s: f.number(p.s) })}</>;
}

/**
 * CostCard is what the rental costs. While it runs: the time and charge
 * the meter has billed (what the balance paid, rental_meters.charged), and
 * between ticks an estimate by billing's own rule from the rate and the
 * seconds since the start, marked as such; the meter's figure replaces it
 * at each tick (rentalUpdated). Once it ended: the final charge with its
 * billed seconds, any refund, and the end in words.
 */
function CostCard({ rental }: { rental: Rental }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const lng = i18n.language;
  const now = useNow(1000);
  // Only while it runs: a stopping rental is billed to the stop's request, which the page does not know.
  const estimate = rental.state === 'RUNNING' ? estimateNow(rental, now) : null;
  const perHour = costOf(rental.pricePerHour, rental.gpuCount, 3600);
  const ended = isEnded(rental.state);
  return (
    <section className="card rental-cost" aria-labelledby="rental-cost" data-testid="rental-cost" data-charged={rental.charged} data-billed-seconds={rental.billedSeconds}>
      <h2 id="rental-cost">{ended ? t('rentals.cost.finalTitle') : t('rentals.cost.title')}</h2>
      {ended && rental.end && (
        <p className={`notice ${rental.state === 'FAILED' || rental.state === 'INTERRUPTED' ? 'error' : 'info'}`} data-testid="rental-end" data-end={rental.end}>
          {t(`rentals.end.${rental.end}`)}
        </p>
      )}
      <dl className="facts">
        <dt>{t('rentals.cost.rate')}</dt>
        <dd>
          {t('rentals.cost.rateTotal', { gpus: f.number(rental.gpuCount), price: isolate(formatUsdc(rental.pricePerHour, lng)), total: isolate(formatUsdc(perHour, lng)) })}
        </dd>
        <dt>{t('rentals.cost.billed')}</dt>
        <dd data-testid="rental-billed">
          <Duration seconds={rental.billedSeconds} />
        </dd>
        <dt>{ended ? t('rentals.cost.final') : t('rentals.cost.charged')}</dt>
        <dd data-testid="rental-charged">{t('rentals.cost.usdc', { amount: isolate(formatUsdc(rental.charged, lng)) })}</dd>
        {rental.state === 'RUNNING' && <CostMeter charged={rental.charged} />}
        {estimate && !ended && (
          <>
            <dt>{t('rentals.cost.estimate')}</dt>
            <dd data-testid="rental-estimate">
              {t('rentals.cost.estimateValue', { amount: isolate(formatUsdc(estimate.charged, lng)) })}{' '}
              <span className="muted">
                (<Duration seconds={estimate.seconds} />)
              </span>
            </dd>
          </>
        )}
        {ended && (
          <>
            <dt>{t('rentals.cost.refunded')}</dt>
            <dd data-testid="rental-refunded">
              {sameUsdc(rental.refunded, '0') ? t('rentals.cost.noRefund') : t('rentals.cost.usdc', { amount: isolate(formatUsdc(rental.refunded, lng)) })}
            </dd>
          </>
        )}
      </dl>
      <p className="muted small">{ended ? t('rentals.cost.finalNote') : t('rentals.cost.note')}</p>
      {ended && (
        <Link to={`/rentals/${rental.id}/receipt`} className="button" data-testid="rental-receipt-link">
          {t('rentals.receipt.open')}
        </Link>
      )}
    </section>
  );
}

/**
 * CostMeter is the running rental's charge against what the customer's
 * funds can still pay: a bar of the charge over the charge and the balance
 * left, both figures, and until when the balance lasts at what the running
 * rentals cost. The balance is read again at each metering tick (a new
 * charge), so the bar moves with the meter.
 */
function CostMeter({ charged }: { charged: string }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const lng = i18n.language;
  const { funds, refresh } = useFunds();
  // Read again when the meter posts a new charge, not at mount (useFunds
  // has just read it).
  const seen = useRef(charged);
  useEffect(() => {
    if (seen.current === charged) return;
    seen.current = charged;
    refresh();
  }, [charged, refresh]);
  if (!funds) return null;
  const fill = meterFill(charged, funds.balance);
  return (
    <>
      <dt>{t('rentals.meter.title')}</dt>
      <dd className="cost-meter" data-testid="rental-meter" data-fill={fill} data-balance={funds.balance} data-runs-out-at={funds.runsOutAt ?? ''}>
        <Bar fill={fill} tone={fill >= 80 ? 'bad' : 'plain'} testId="rental-meter-bar" />
        <span className="small">
          {t('rentals.meter.split', { charged: isolate(formatUsdc(charged, lng)), left: isolate(formatUsdc(funds.balance, lng)) })}
          {funds.runsOutAt && <> {t('rentals.meter.lasts', { at: f.dateTime(funds.runsOutAt) })}</>}
        </span>
      </dd>
    </>
  );
}

/** StopButton asks for a confirmation, then stops the rental. */
function StopButton({ id, onStopped }: { id: string; onStopped: (r: RentalFieldsFragment) => void }) {
  const { t } = useTranslation();
  const [confirming, setConfirming] = useState(false);
  const [result, stop] = useMutation(StopRentalMutation);
  const [codes, setCodes] = useState<Parameters<typeof FieldErrorText>[0]['errors']>([]);

  async function onConfirm() {
    const res = await stop({ id });
    const payload = res.data?.stopRental;
    setCodes(payload?.userErrors.map((e) => e.code) ?? []);
    if (payload?.rental) {
      onStopped(payload.rental);
      setConfirming(false);
    }
  }

  return (
    <div className="rental-stop">
      {confirming ? (
        <span className="confirm" role="group" aria-label={t('rentals.stop.confirm')}>
          <span>{t('rentals.stop.confirm')}</span>
          <button type="button" className="button danger small" onClick={() => void onConfirm()} disabled={result.fetching} data-testid="rental-stop-confirm">
            {t('rentals.stop.yes')}
          </button>
          <button type="button" className="button small" onClick={() => setConfirming(false)} data-testid="rental-stop-cancel">
            {t('common.cancel')}
          </button>
        </span>
      ) : (
        <button type="button" className="button danger-outline" onClick={() => setConfirming(true)} data-testid="rental-stop">
          {t('rentals.stop.button')}
        </button>
      )}
      {result.error && <ErrorNotice error={result.error} />}
      <FieldErrorText name="stop" errors={codes} className="form-error" testId="rental-stop-error" />
    </div>
  );
}

/**
 * LogTail shows the job's latest output (the agent sends at most 16 KiB) in
 * a scrolling monospace box that follows new lines while the reader is at
 * its end, and stays put when they scroll up to read.
 */
function LogTail({ text }: { text: string }) {
  const { t } = useTranslation();
  const box = useRef<HTMLPreElement>(null);
  const atEnd = useRef(true);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [text]);

  return (
    <section className="card" aria-labelledby="rental-log">
      <h2 id="rental-log">{t('rentals.log.title')}</h2>
      {text === '' ? (
        <p className="muted" data-testid="rental-log-empty">
          {t('rentals.log.empty')}
        </p>
      ) : null}
      <pre
        ref={box}
        className="log-tail"
        dir="ltr"
        tabIndex={0}
        aria-label={t('rentals.log.title')}
        aria-live="off"
        data-testid="rental-log"
        hidden={text === ''}
        onScroll={(e) => {
          atEnd.current = followLog(e.currentTarget);
        }}
      >
        {text}
      </pre>
    </section>
  );
}
