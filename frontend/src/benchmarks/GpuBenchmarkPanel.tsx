import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { ListingBadge } from '../ui/Badge';
import { isolate, useFormat } from '../ui/format';
import { TimeSeriesChart } from '../ui/TimeSeriesChart';
import { Folded } from '../ui/Folded';
import { FigureStrip } from './FigureStrip';
import { FiguresTable } from './FiguresTable';
import { useBenchmarkFormat } from './format';
import { historyRange, scoreHistory } from './history';
import type { GpuStanding } from './standing';
import type { GpuName } from './useBenchmarks';

/**
 * GpuBenchmarkPanel is one GPU: its listing, score and since when; when
 * delisted, a link up to why and what to check (the page's problems card);
 * its latest figures at a glance as a strip of pass and fail, and one tap
 * away the table of them against the reference and its score's history.
 */
export function GpuBenchmarkPanel({ gpu, name }: { gpu: GpuStanding; name: GpuName | undefined }) {
  const { t } = useTranslation();
  const f = useFormat();
  const fmt = useBenchmarkFormat();
  const label = name ? t('benchmarks.gpu', { index: name.index, name: isolate(name.name) }) : t('benchmarks.gpuUuid', { uuid: isolate(gpu.gpuUuid) });
  const latest = gpu.latest;
  return (
    <section
      className="bench-gpu"
      id={`bench-gpu-${gpu.gpuId}`}
      aria-label={label}
      data-testid="bench-gpu"
      data-gpu-id={gpu.gpuId}
      data-uuid={gpu.gpuUuid}
      data-listing={gpu.listing}
      data-score={gpu.score ?? ''}
    >
      <header className="bench-gpu-head">
        <h3 className="wrap-anywhere">{label}</h3>
        <ListingBadge listing={gpu.listing} testId="bench-listing" />
        <span className="bench-score" data-testid="bench-score">
          {gpu.score === null ? <span className="muted">{t('benchmarks.notScored')}</span> : fmt.score(gpu.score)}
        </span>
      </header>
      <p className="muted small">
        {t(`benchmarks.listingSince.${gpu.listing}`, { when: f.dateTime(gpu.listingChangedAt) })}
        {latest?.simulated && <span className="chip small">{t('benchmarks.simulated')}</span>}
      </p>
      {latest && latest.outcome !== 'COMPLETED' && (
        <p className="muted small" data-testid="bench-outcome" data-outcome={latest.outcome}>
          {t(`benchmarks.outcome.${latest.outcome}`)}
          {latest.error && (
            <>
              {' '}
              <code dir="ltr" className="wrap-anywhere">
                {latest.error}
              </code>
            </>
          )}
        </p>
      )}
      {gpu.listing === 'DELISTED' && (
        <p className="small">
          <a href={`#bench-problem-${gpu.gpuId}`} data-testid="bench-why-link">
            {t('benchmarks.problems.whyLink')}
          </a>
        </p>
      )}
      {latest && latest.figures.length > 0 && <FigureStrip figures={latest.figures} label={t('benchmarks.latestFigures', { when: f.dateTime(latest.at) })} />}
      <Folded className="bench-details" testId="bench-gpu-details" summary={t('benchmarks.detailsSummary')}>
        {() => (
          <>
            {latest && latest.figures.length > 0 && (
              <FiguresTable figures={latest.figures} caption={t('benchmarks.latestFigures', { when: f.dateTime(latest.at) })} />
            )}
            <ScoreHistoryChart gpu={gpu} label={label} />
          </>
        )}
      </Folded>
    </section>
  );
}

/**
 * ScoreHistoryChart draws the GPU's score and its consistency (the score
 * against the GPU's own usual, as a percentage) over its recent runs,
 * oldest to newest. One run draws no line; the chart waits for a second.
 */
function ScoreHistoryChart({ gpu, label }: { gpu: GpuStanding; label: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const history = useMemo(() => scoreHistory(gpu.history), [gpu.history]);
  const series = useMemo(
    () => [
      { label: t('benchmarks.history.score'), values: history.score },
      { label: t('benchmarks.history.consistency'), values: history.consistencyPct },
    ],
    [history, t],
  );
  const range = useMemo(() => historyRange(history), [history]);
  if (history.xs.length < 2) {
    return (
      <p className="muted small" data-testid="bench-history-waiting">
        {t('benchmarks.history.waiting', { runs: history.xs.length })}
      </p>
    );
  }
  return (
    <TimeSeriesChart
      testId="bench-history-chart"
      title={t('benchmarks.history.title', { gpu: label })}
      xs={history.xs}
      series={series}
      x={{ time: true, label: t('benchmarks.history.xLabel') }}
      y={{ label: t('benchmarks.history.yLabel'), format: (v) => f.number(v), range }}
      height={180}
    />
  );
}
