import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useSession } from '../account/session';
import type { EarningsFieldsFragment } from '../gql/graphql';
import { PayoutsTable } from '../payouts/PayoutsTable';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Bar } from '../ui/Bar';
import { DataTable } from '../ui/DataTable';
import { isolate } from '../ui/format';
import { Loading } from '../ui/Loading';
import { formatUsdc, fromMicros, toMicros } from '../ui/usdc';
import { useNow } from '../ui/useNow';
import { liveNetMicros, sharesOf, type Share } from './earnings';
import './earnings.css';
import { HistoryCard } from './HistoryCard';
import { useEarnings } from './useEarnings';
import { useZonedDates } from './zonedDates';
import { ForbiddenPage } from '../shell/ForbiddenPage';

/**
 * EarningsPage is the provider's Earnings tab: the current period's net,
 * live (earningsUpdated, and between events the accrual rate every
 * second), per GPU and per model, the available balance and the payouts
 * on their way, and the history over a chosen range as a chart and a CSV.
 */
export function EarningsPage() {
  const { user } = useSession();
  if (!user?.roles.includes('PROVIDER')) return <ForbiddenPage role="PROVIDER" />;
  return <ProviderEarnings />;
}

function ProviderEarnings() {
  const { t } = useTranslation();
  const view = useEarnings();
  const { earnings } = view;

  if (view.providerId === undefined && view.error) return <ErrorNotice error={view.error} onRetry={view.refresh} />;
  if (view.providerId === null) return <ForbiddenPage role="PROVIDER" />;
  if (!earnings) return <Loading />;

  return (
    <section className="page earnings" data-testid="earnings-page" data-live={view.live} data-events={view.events}>
      <header className="page-head">
        <h1>{t('earnings.title')}</h1>
        <p className="lead">{t('earnings.lead')}</p>
      </header>
      {view.error && <ErrorNotice error={view.error} />}
      <div className="earnings-top">
        <PeriodCard earnings={earnings} live={view.live} events={view.events} />
        <BalanceCard earnings={earnings} />
      </div>
      <div className="two-columns">
        <ByGpuCard earnings={earnings} />
        <ByModelCard earnings={earnings} />
      </div>
      <HistoryCard timeZone={earnings.timeZone} events={view.events} />
    </section>
  );
}

/** PeriodCard is the period's net, ticking every second by the accrual rate, with its gross and fees. */
function PeriodCard({ earnings: e, live, events }: { earnings: EarningsFieldsFragment; live: boolean; events: number }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const dates = useZonedDates(e.timeZone);
  const now = useNow(1000);
  const micros = liveNetMicros({ net: e.period.net, accrualPerHour: e.accrualPerHour, asOf: e.asOf }, now);
  const accruing = toMicros(e.accrualPerHour) > 0n;
  return (
    <section
      className="card period-card"
      aria-labelledby="earnings-period"
      data-testid="earnings-period"
      data-kind={e.period.kind}
      data-micros={micros.toString()}
      data-net={e.period.net}
      data-accrual={e.accrualPerHour}
      data-as-of={e.asOf}
      data-live={live}
      data-events={events}
    >
      <h2 id="earnings-period">{t(`earnings.period.title.${e.period.kind}`)}</h2>
      <p className="muted small" data-testid="earnings-period-dates">
        {t('earnings.period.dates', { start: dates.date(e.period.start), end: dates.date(e.period.end, true), zone: isolate(e.timeZone) })}
      </p>
      {/* The total changes every second: screen readers are not told each time. */}
      <p className="live-total" data-testid="earnings-net" aria-live="off">
        {t('common.usdc', { amount: isolate(formatUsdc(fromMicros(micros), lng)) })}
      </p>
      <p className="muted small">{t('earnings.period.net')}</p>
      <dl className="facts compact">
        <dt>{t('earnings.period.gross')}</dt>
        <dd data-testid="earnings-gross">{t('common.usdc', { amount: isolate(formatUsdc(e.period.gross, lng)) })}</dd>
        <dt>{t('earnings.period.fees')}</dt>
        <dd data-testid="earnings-fees">{t('common.usdc', { amount: isolate(formatUsdc(e.period.fees, lng)) })}</dd>
        <dt>{t('earnings.period.rate')}</dt>
        <dd data-testid="earnings-accrual">
          {accruing ? t('earnings.period.perHour', { amount: isolate(formatUsdc(e.accrualPerHour, lng)) }) : t('earnings.period.idle')}
        </dd>
      </dl>
      <p className="muted small" role="status">
        {live ? t('earnings.period.live') : t('earnings.period.connecting')}
      </p>
    </section>
  );
}

/** BalanceCard is what is available for the next payout and the payouts on their way. */
function BalanceCard({ earnings: e }: { earnings: EarningsFieldsFragment }) {
  const { t, i18n } = useTranslation();
  return (
    <section className="card" aria-labelledby="earnings-balance" data-testid="earnings-balance" data-available={e.availableBalance}>
      <h2 id="earnings-balance">{t('earnings.balance.title')}</h2>
      <p className="balance-figure" data-testid="earnings-available">
        {t('common.usdc', { amount: isolate(formatUsdc(e.availableBalance, i18n.language)) })}
      </p>
      <p className="muted small">{t('earnings.balance.lead')}</p>
      <h3>{t('earnings.balance.pending')}</h3>
      {e.pendingPayouts.length === 0 ? (
        <p data-testid="earnings-pending-none">{t('earnings.balance.noPending')}</p>
      ) : (
        <PayoutsTable payouts={e.pendingPayouts} caption={t('earnings.balance.pending')} testId="earnings-pending" />
      )}
      <Link to="/provider/payouts" data-testid="earnings-to-payouts">
        {t('earnings.balance.toPayouts')}
      </Link>
    </section>
  );
}

/** ByGpuCard lists the period's net per GPU, largest first. */
function ByGpuCard({ earnings: e }: { earnings: EarningsFieldsFragment }) {
  const { t, i18n } = useTranslation();
  const rows = useMemo(() => withShares([...e.byGpu].sort((a, b) => cmpDesc(a.net, b.net))), [e.byGpu]);
  return (
    <section className="card" aria-labelledby="earnings-gpus" data-testid="earnings-by-gpu">
      <h2 id="earnings-gpus">{t('earnings.byGpu.title')}</h2>
      {rows.length === 0 ? (
        <p data-testid="earnings-by-gpu-none">{t('earnings.byGpu.none')}</p>
      ) : (
        <DataTable
          caption={t('earnings.byGpu.title')}
          rows={rows}
          rowKey={(g) => g.gpuId}
          rowProps={(g) => ({ 'data-testid': 'earnings-gpu', 'data-gpu': g.gpuId, 'data-net': g.net, 'data-share': g.share.ofTotal })}
          columns={[
            { key: 'machine', header: t('earnings.byGpu.machine'), primary: true, className: 'wrap-anywhere', cell: (g) => <bdi>{g.hostname}</bdi> },
            {
              key: 'gpu',
              header: t('earnings.byGpu.gpu'),
              cell: (g) => (
                <span title={g.gpuUuid} data-testid="earnings-gpu-index">
                  {t('earnings.byGpu.index', { index: g.gpuIndex })}
                </span>
              ),
            },
            { key: 'model', header: t('earnings.byGpu.model'), cell: (g) => <span dir="auto">{g.model?.name ?? g.modelKey}</span> },
            {
              key: 'net',
              header: t('earnings.net'),
              align: 'end',
              className: 'amount',
              cell: (g) => t('common.usdc', { amount: isolate(formatUsdc(g.net, i18n.language)) }),
            },
            { key: 'share', header: t('earnings.share'), cell: (g) => <ShareCell share={g.share} /> },
          ]}
        />
      )}
    </section>
  );
}

/** ByModelCard lists the period's net per GPU model, largest first. */
function ByModelCard({ earnings: e }: { earnings: EarningsFieldsFragment }) {
  const { t, i18n } = useTranslation();
  const rows = useMemo(() => withShares([...e.byModel].sort((a, b) => cmpDesc(a.net, b.net))), [e.byModel]);
  return (
    <section className="card" aria-labelledby="earnings-models" data-testid="earnings-by-model">
      <h2 id="earnings-models">{t('earnings.byModel.title')}</h2>
      {rows.length === 0 ? (
        <p data-testid="earnings-by-model-none">{t('earnings.byModel.none')}</p>
      ) : (
        <DataTable
          caption={t('earnings.byModel.title')}
          rows={rows}
          rowKey={(m) => m.modelKey}
          rowProps={(m) => ({ 'data-testid': 'earnings-model', 'data-model': m.modelKey, 'data-net': m.net, 'data-share': m.share.ofTotal })}
          columns={[
            { key: 'model', header: t('earnings.byModel.model'), primary: true, cell: (m) => <span dir="auto">{m.model?.name ?? m.modelKey}</span> },
            {
              key: 'net',
              header: t('earnings.net'),
              align: 'end',
              className: 'amount',
              cell: (m) => t('common.usdc', { amount: isolate(formatUsdc(m.net, i18n.language)) }),
            },
            { key: 'share', header: t('earnings.share'), cell: (m) => <ShareCell share={m.share} /> },
          ]}
        />
      )}
    </section>
  );
}

/** withShares adds to each row its share of the rows' earnings (sharesOf), for the bars. */
function withShares<T extends { net: string }>(rows: T[]): (T & { share: Share })[] {
  const shares = sharesOf(rows.map((r) => r.net));
  return rows.map((r, i) => ({ ...r, share: shares[i] ?? { bar: 0, ofTotal: 0 } }));
}

/** ShareCell is a row's earnings as a bar to scale with the others, and its percentage of them. */
function ShareCell({ share }: { share: Share }) {
  const { i18n } = useTranslation();
  const percent = useMemo(() => new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 0 }), [i18n.language]);
  return (
    <span className="share">
      <Bar fill={share.bar} tone="good" testId="earnings-share-bar" />
      <span className="share-text">{percent.format(share.ofTotal)}</span>
    </span>
  );
}

/** cmpDesc orders amounts largest first, exactly. */
function cmpDesc(a: string, b: string): number {
  const d = toMicros(b) - toMicros(a);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}
