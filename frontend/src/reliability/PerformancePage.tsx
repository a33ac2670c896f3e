import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../account/session';
import type { ReliabilityComponentsFieldsFragment, ReliabilityFieldsFragment } from '../gql/graphql';
import { ErrorNotice } from '../ui/ErrorNotice';
import { DataTable } from '../ui/DataTable';
import { isolate, useFormat } from '../ui/format';
import { Loading } from '../ui/Loading';
import { TimeSeriesChart } from '../ui/TimeSeriesChart';
import { adviceCodes, byCost, eventSentence, percent, projectionSummary, trendChartData, trendRange, type EventSentence } from './reliability';
import './reliability.css';
import { useReliability } from './useReliability';
import { ForbiddenPage } from '../shell/ForbiddenPage';

/** COMPONENTS are the score's three parts, in the order of their weight. */
const COMPONENTS = ['uptime', 'completion', 'consistency'] as const;

/**
 * PerformancePage is the provider's Performance tab: the reliability score
 * and whether it is under the floor, its three components, the daily trend
 * with the projected recovery, the events that lowered it (costliest
 * first), what would raise it and each machine's score, updated live by
 * reliabilityUpdated.
 */
export function PerformancePage() {
  const { user } = useSession();
  if (!user?.roles.includes('PROVIDER')) return <ForbiddenPage role="PROVIDER" />;
  return <ProviderPerformance />;
}

function ProviderPerformance() {
  const { t } = useTranslation();
  const view = useReliability();
  const r = view.reliability;

  if (view.providerId === undefined && view.error) return <ErrorNotice error={view.error} onRetry={view.refresh} />;
  if (view.providerId === null) return <ForbiddenPage role="PROVIDER" />;
  if (!r) return <Loading />;

  return (
    <section
      className="page performance"
      data-testid="performance-page"
      data-live={view.live}
      data-events={view.events}
      data-score={r.scored ? r.score : ''}
      data-scored={r.scored}
      data-below-floor={r.belowFloor}
      data-event-count={r.events.length}
    >
      <header className="page-head">
        <h1>{t('reliability.title')}</h1>
        <p className="lead">{t('reliability.lead')}</p>
      </header>
      {view.error && <ErrorNotice error={view.error} />}
      <div className="performance-top">
        <ScoreCard reliability={r} live={view.live} />
        {/* A projection of the prior would promise nothing real. */}
        {r.scored && <AdviceCard reliability={r} />}
      </div>
      <TrendCard reliability={r} />
      <EventsCard reliability={r} />
      <MachinesCard reliability={r} />
    </section>
  );
}

/** ScoreCard is the score, the floor and the three components. */
function ScoreCard({ reliability: r, live }: { reliability: ReliabilityFieldsFragment; live: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <section className="card" aria-labelledby="performance-score" data-testid="performance-score-card">
      <h2 id="performance-score">{t('reliability.score.title')}</h2>
      {r.scored ? (
        <>
          <p className={r.belowFloor ? 'score-figure below-floor' : 'score-figure'} data-testid="performance-score" data-score={r.score}>
            {f.number(r.score)}
            <span className="score-out-of">{t('reliability.score.outOf')}</span>
          </p>
          <p data-testid="performance-floor" data-below={r.belowFloor} className={r.belowFloor ? 'floor-note below-floor' : 'floor-note muted'}>
            {r.belowFloor ? t('reliability.score.belowFloor', { floor: f.number(r.floor) }) : t('reliability.score.aboveFloor', { floor: f.number(r.floor) })}
          </p>
          <ComponentsList components={r.components} />
        </>
      ) : (
        // Nothing observed yet: the prior is nobody's score, so none is shown.
        <>
          <p className="score-figure muted" data-testid="performance-score" data-score="">
            {t('reliability.score.none')}
          </p>
          <p data-testid="performance-score-none">{t('reliability.score.noneHelp')}</p>
        </>
      )}
      <p className="muted small">{t('reliability.score.window', { days: f.number(r.windowDays), halfLife: f.number(r.halfLifeDays) })}</p>
      <p className="muted small" role="status">
        {live ? t('reliability.live', { when: f.dateTime(r.asOf) }) : t('reliability.connecting')}
      </p>
    </section>
  );
}

/** ComponentsList gives each component as a percentage and what it measures. */
function ComponentsList({ components }: { components: ReliabilityComponentsFieldsFragment }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <dl className="components">
      {COMPONENTS.map((c) => (
        <div key={c} className="component" data-testid="performance-component" data-component={c} data-value={components[c]}>
          <dt>{t(`reliability.components.${c}.name`)}</dt>
          <dd>
            <span className="component-value">{t('reliability.percent', { value: f.number(percent(components[c])) })}</span>
            <span className="muted small component-help">{t(`reliability.components.${c}.help`)}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** AdviceCard is the projected recovery and what would raise the score. */
function AdviceCard({ reliability: r }: { reliability: ReliabilityFieldsFragment }) {
  const { t } = useTranslation();
  const f = useFormat();
  const summary = projectionSummary(r.projection, r.asOf);
  const codes = adviceCodes(r.advice);
  const projection =
    summary.week !== null && summary.month !== null
      ? t('reliability.projection.both', { week: f.number(summary.week), month: f.number(summary.month) })
      : summary.week !== null
        ? t('reliability.projection.week', { week: f.number(summary.week) })
        : t('reliability.projection.none');
  return (
    <section className="card" aria-labelledby="performance-advice" data-testid="performance-advice-card">
      <h2 id="performance-advice">{t('reliability.advice.title')}</h2>
      <p data-testid="performance-projection" data-week={summary.week ?? ''} data-month={summary.month ?? ''}>
        {projection}
      </p>
      <ul className="advice-list">
        {codes.map((code) => (
          <li key={code} data-testid="performance-advice" data-advice={code}>
            {t(`reliability.advice.${code}`)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** TrendCard draws the daily scores and, as a second line continuing them, the projection. */
function TrendCard({ reliability: r }: { reliability: ReliabilityFieldsFragment }) {
  const { t } = useTranslation();
  const f = useFormat();
  const data = useMemo(() => trendChartData(r.trend, r.projection, { day: r.asOf, score: r.score }), [r.trend, r.projection, r.asOf, r.score]);
  const scoreLabel = t('reliability.trend.score');
  const projectedLabel = t('reliability.trend.projected');
  const floorLabel = t('reliability.trend.floor', { floor: f.number(r.floor) });
  const series = useMemo(
    () => [
      { label: scoreLabel, values: data.scores },
      { label: projectedLabel, values: data.projected },
      // The floor as a flat line: the score's distance from it at a glance.
      { label: floorLabel, values: data.xs.map(() => r.floor) },
    ],
    [data, scoreLabel, projectedLabel, floorLabel, r.floor],
  );
  const range = useMemo(() => trendRange([...data.scores, ...data.projected], r.floor), [data, r.floor]);
  const today = useMemo(() => [{ x: Math.floor(Date.parse(r.asOf) / 1000), label: t('reliability.trend.today') }], [r.asOf, t]);
  return (
    <section className="card" aria-labelledby="performance-trend" data-testid="performance-trend" data-days={r.trend.length} data-projected={r.projection.length}>
      <h2 id="performance-trend">{t('reliability.trend.title')}</h2>
      {data.xs.length === 0 ? (
        <p data-testid="performance-trend-none">{t('reliability.trend.none')}</p>
      ) : (
        <TimeSeriesChart
          title={t('reliability.trend.chart')}
          xs={data.xs}
          series={series}
          x={{ label: t('reliability.trend.day'), time: true }}
          y={{ label: t('reliability.trend.score'), format: (v) => f.number(v), range }}
          marks={today}
          height={220}
          testId="performance-trend-chart"
        />
      )}
    </section>
  );
}

/** EventsCard lists the events that lowered the score, costliest first. */
function EventsCard({ reliability: r }: { reliability: ReliabilityFieldsFragment }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const sentence = useSentence();
  const events = useMemo(() => byCost(r.events), [r.events]);
  const points = useMemo(() => new Intl.NumberFormat(i18n.language, { minimumFractionDigits: 1, maximumFractionDigits: 1 }), [i18n.language]);
  return (
    <section className="card" aria-labelledby="performance-events" data-testid="performance-events">
      <h2 id="performance-events">{t('reliability.events.title')}</h2>
      <p className="muted">{t('reliability.events.lead', { days: f.number(r.halfLifeDays) })}</p>
      {events.length === 0 ? (
        <p data-testid="performance-events-none">{t('reliability.events.none')}</p>
      ) : (
        <DataTable
          caption={t('reliability.events.title')}
          rows={events}
          rowKey={(e) => `${e.kind}-${e.machineId}-${e.at}-${events.indexOf(e)}`}
          rowProps={(e) => ({ 'data-testid': 'performance-event', 'data-kind': e.kind, 'data-hostname': e.hostname, 'data-cost': e.cost, 'data-magnitude': e.magnitude })}
          columns={[
            {
              key: 'what',
              header: t('reliability.events.what'),
              primary: true,
              cellProps: () => ({ 'data-testid': 'performance-event-what' }),
              cell: (e) => sentence(eventSentence(e)),
            },
            { key: 'machine', header: t('reliability.events.machine'), className: 'wrap-anywhere', cell: (e) => <bdi>{e.hostname}</bdi> },
            { key: 'when', header: t('reliability.events.when'), cell: (e) => f.dateTime(e.at) },
            {
              key: 'cost',
              header: t('reliability.events.cost'),
              cell: (e) => (
                <>
                  <span data-testid="performance-event-cost">{t('reliability.events.points', { points: points.format(e.cost) })}</span>
                  <span className="muted small fading">{t('reliability.events.fading', { days: f.number(r.halfLifeDays) })}</span>
                </>
              ),
            },
          ]}
        />
      )}
    </section>
  );
}

/** useSentence writes an event's sentence (see eventSentence) in the reader's language. */
function useSentence(): (s: EventSentence) => string {
  const { t } = useTranslation();
  const f = useFormat();
  return (s) =>
    t(`reliability.event.${s.key}`, {
      hours: f.number(s.hours ?? 0),
      minutes: f.number(s.minutes ?? 0),
      percent: f.number(s.percent ?? 0),
      rental: isolate(s.rental ?? ''),
    });
}

/** MachinesCard is each machine's score and components, those under the floor highlighted. */
function MachinesCard({ reliability: r }: { reliability: ReliabilityFieldsFragment }) {
  const { t } = useTranslation();
  const f = useFormat();
  const pct = (v: number) => t('reliability.percent', { value: f.number(percent(v)) });
  return (
    <section className="card" aria-labelledby="performance-machines" data-testid="performance-machines">
      <h2 id="performance-machines">{t('reliability.machines.title')}</h2>
      {r.machines.length === 0 ? (
        <p data-testid="performance-machines-none">{t('reliability.machines.none')}</p>
      ) : (
        <DataTable
          caption={t('reliability.machines.title')}
          rows={r.machines}
          rowKey={(m) => m.machineId}
          rowClassName={(m) => (m.belowFloor ? 'below-floor-row' : undefined)}
          rowProps={(m) => ({ 'data-testid': 'performance-machine', 'data-hostname': m.hostname, 'data-score': m.scored ? m.score : '', 'data-below-floor': m.belowFloor })}
          columns={[
            { key: 'machine', header: t('reliability.machines.machine'), primary: true, className: 'wrap-anywhere', cell: (m) => <bdi>{m.hostname}</bdi> },
            {
              key: 'score',
              header: t('reliability.machines.score'),
              cell: (m) =>
                !m.scored ? (
                  <span className="muted">{t('reliability.machines.notScored')}</span>
                ) : (
                <>
                  <strong>{f.number(m.score)}</strong>
                  {m.belowFloor && <span className="status below-floor-tag">{t('reliability.machines.belowFloor')}</span>}
                </>
              ),
            },
            ...COMPONENTS.map((c) => ({
              key: c,
              header: t(`reliability.components.${c}.name`),
              align: 'end' as const,
              cell: (m: (typeof r.machines)[number]) => pct(m.components[c]),
            })),
          ]}
        />
      )}
    </section>
  );
}
