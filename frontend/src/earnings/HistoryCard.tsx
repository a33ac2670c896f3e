import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useClient, useQuery, type CombinedError } from 'urql';
import type { EarningsGrouping } from '../gql/graphql';
import { downloadText } from '../ui/download';
import { ErrorNotice } from '../ui/ErrorNotice';
import { isolate } from '../ui/format';
import { FormField, SelectField } from '../ui/FormField';
import '../ui/tabs.css';
import { TimeSeriesChart } from '../ui/TimeSeriesChart';
import { formatChartUsdc, formatUsdc, fromMicros } from '../ui/usdc';
import {
  csvFileName,
  GROUPINGS,
  historySeries,
  historyVariables,
  MAX_HOUR_DAYS,
  presetGrouping,
  presetRange,
  RANGE_PRESETS,
  rangeProblem,
  sumMicros,
  todayIn,
  type DateRange,
  type RangePreset,
} from './earnings';
import { EarningsHistoryCsvQuery, EarningsHistoryQuery } from './operations';

/**
 * HistoryCard charts the net and gross earned per bucket over a range of
 * the provider's days: the last 7 or 30 days, the last 12 months, or any
 * dates; grouped by hour (over at most MAX_HOUR_DAYS days), day, week or
 * month. The range downloads as CSV. A new earnings event reads the
 * history again, so a range that ends today stays current.
 */
export function HistoryCard({ timeZone, events }: { timeZone: string; events: number }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const client = useClient();
  const today = todayIn(timeZone, Date.now());
  const [preset, setPreset] = useState<RangePreset>('DAYS_30');
  const [custom, setCustom] = useState<DateRange>(() => presetRange('DAYS_30', today));
  const [groupBy, setGroupBy] = useState<EarningsGrouping>('DAY');
  const [downloading, setDownloading] = useState(false);
  const [csvError, setCsvError] = useState<CombinedError | undefined>(undefined);

  const range = preset === 'CUSTOM' ? custom : presetRange(preset, today);
  const problem = rangeProblem(range, groupBy);
  const variables = useMemo(
    () => (problem ? null : historyVariables(range, groupBy, timeZone)),
    // The range's dates are what matters, not the object.
    [problem, range.from, range.to, groupBy, timeZone],
  );
  const [{ data, fetching, error }, reexecute] = useQuery({
    query: EarningsHistoryQuery,
    variables: variables ?? { from: '', to: '', groupBy },
    pause: variables === null,
    requestPolicy: 'cache-and-network',
  });
  useEffect(() => {
    if (events > 0 && variables) reexecute({ requestPolicy: 'network-only' });
    // Only a new event reads again; new variables do so themselves.
  }, [events]);

  const buckets = variables ? data?.myProvider?.earnings.history : undefined;
  const series = useMemo(() => historySeries(buckets ?? []), [buckets]);
  const chartSeries = useMemo(
    () => [
      { label: t('earnings.history.netSeries'), values: series.net, step: true },
      { label: t('earnings.history.grossSeries'), values: series.gross, step: true },
    ],
    [series, t],
  );
  const total = buckets ? fromMicros(sumMicros(buckets.map((b) => b.net))) : null;

  function choose(p: RangePreset) {
    // Custom starts from the range shown; a preset brings its grouping.
    if (p === 'CUSTOM') setCustom(range);
    else setGroupBy(presetGrouping(p));
    setPreset(p);
  }

  async function download() {
    if (!variables) return;
    setDownloading(true);
    const res = await client.query(EarningsHistoryCsvQuery, variables, { requestPolicy: 'network-only' }).toPromise();
    setDownloading(false);
    setCsvError(res.error);
    const csv = res.data?.myProvider?.earnings.historyCsv;
    if (csv !== undefined) downloadText(csv, csvFileName(range), 'text/csv;charset=utf-8');
  }

  return (
    <section className="card history-card" aria-labelledby="earnings-history" data-testid="earnings-history" data-from={range.from} data-to={range.to} data-group-by={groupBy} data-buckets={buckets?.length ?? ''} data-fetching={fetching}>
      <h2 id="earnings-history">{t('earnings.history.title')}</h2>
      <div className="tabs" role="group" aria-label={t('earnings.history.range')}>
        {RANGE_PRESETS.map((p) => (
          <button key={p} type="button" className={preset === p ? 'tab active' : 'tab'} aria-pressed={preset === p} onClick={() => choose(p)} data-testid={`history-preset-${p}`}>
            {t(`earnings.history.preset.${p}`)}
          </button>
        ))}
      </div>
      <div className="history-controls">
        {preset === 'CUSTOM' && (
          <>
            <FormField name="historyFrom" type="date" label={t('earnings.history.from')} value={custom.from} max={custom.to || undefined} onChange={(e) => setCustom((c) => ({ ...c, from: e.target.value }))} />
            <FormField name="historyTo" type="date" label={t('earnings.history.to')} value={custom.to} min={custom.from || undefined} onChange={(e) => setCustom((c) => ({ ...c, to: e.target.value }))} />
          </>
        )}
        <SelectField name="historyGroupBy" label={t('earnings.history.groupBy')} value={groupBy} onChange={(e) => setGroupBy(e.target.value as EarningsGrouping)}>
          {GROUPINGS.map((g) => (
            <option key={g} value={g}>
              {t(`earnings.history.grouping.${g}`)}
            </option>
          ))}
        </SelectField>
        <button type="button" className="button" onClick={() => void download()} disabled={variables === null || downloading} data-testid="history-csv">
          {t('earnings.history.csv')}
        </button>
      </div>
      {problem && (
        <p className="form-error" role="alert" data-testid="history-problem" data-problem={problem}>
          {t(`earnings.history.problem.${problem}`, { days: MAX_HOUR_DAYS })}
        </p>
      )}
      {error && <ErrorNotice error={error} />}
      {csvError && <ErrorNotice error={csvError} />}
      {total !== null && (
        <p data-testid="history-total" data-net={total}>
          {t('earnings.history.total', { amount: isolate(formatUsdc(total, lng)) })}
        </p>
      )}
      {buckets && buckets.length > 0 && (
        <TimeSeriesChart
          title={t('earnings.history.chart')}
          xs={series.xs}
          series={chartSeries}
          x={{ label: t('earnings.history.when'), time: true }}
          y={{ label: t('earnings.history.usdc'), format: (v) => formatChartUsdc(v, lng) }}
          height={220}
          testId="history-chart"
        />
      )}
    </section>
  );
}
