import { useTranslation } from 'react-i18next';
import type { BenchmarkFigureFieldsFragment } from '../gql/graphql';
import { Bar } from '../ui/Bar';
import { DataTable } from '../ui/DataTable';
import { minimumMark, ratioBar, resultOf, sortFigures } from './figure';
import { useBenchmarkFormat } from './format';

/** Figure is one metric of a run as the API sends it. */
export type Figure = BenchmarkFigureFieldsFragment;

/**
 * FiguresTable shows figures against what they should reach: measured,
 * expected and minimum in the metric's unit, a bar of measured over
 * expected with the minimum marked on it, and whether it passed.
 *
 * A table with CSS bars rather than TimeSeriesChart: that component draws
 * lines over a time (or numeric) axis, and figures of different units side
 * by side are a comparison, not a series. An unsupported metric says "Not
 * supported" and has no bar, never a zero.
 */
export function FiguresTable({ figures, caption }: { figures: readonly Figure[]; caption: string }) {
  const { t } = useTranslation();
  const fmt = useBenchmarkFormat();
  const value = (figure: Figure, v: number | null) => (v === null ? <span className="muted">{t('benchmarks.figure.none')}</span> : fmt.inUnit(figure.metric, v));
  return (
    <DataTable
      className="bench-figures"
      testId="bench-figures"
      caption={caption}
      rows={sortFigures(figures)}
      rowKey={(figure) => figure.metric}
      rowProps={(figure) => ({
        'data-testid': 'bench-figure',
        'data-metric': figure.metric,
        'data-supported': figure.supported,
        'data-passed': figure.passed,
        'data-ratio': figure.ratio ?? '',
      })}
      columns={[
        { key: 'metric', header: t('benchmarks.figure.metric'), primary: true, cell: (figure) => fmt.metric(figure.metric) },
        {
          key: 'measured',
          header: t('benchmarks.figure.measured'),
          align: 'end',
          cellProps: () => ({ 'data-testid': 'bench-figure-measured' }),
          cell: (figure) => (figure.supported ? value(figure, figure.measured) : <span className="muted">{t('benchmarks.figure.unsupported')}</span>),
        },
        { key: 'expected', header: t('benchmarks.figure.expected'), align: 'end', cell: (figure) => value(figure, figure.expected) },
        {
          key: 'minimum',
          header: t('benchmarks.figure.minimum'),
          align: 'end',
          cell: (figure) => (figure.minimum === null ? <span className="muted">{t('benchmarks.figure.noThreshold')}</span> : value(figure, figure.minimum)),
        },
        { key: 'ratio', header: t('benchmarks.figure.ratio'), cell: (figure) => <RatioBar figure={figure} /> },
        {
          key: 'result',
          header: t('benchmarks.figure.result'),
          cell: (figure) => {
            const result = resultOf(figure);
            return (
              <span className={`status bench-result-${result}`} data-testid="bench-figure-result">
                {t(`benchmarks.figure.${result}`)}
              </span>
            );
          },
        },
      ]}
    />
  );
}

/** RatioBar is measured over expected as a bar, the minimum marked on it, and as a percentage. */
function RatioBar({ figure }: { figure: Figure }) {
  const { t } = useTranslation();
  const fmt = useBenchmarkFormat();
  const bar = ratioBar(figure);
  const mark = minimumMark(figure);
  if (bar === null) return <span className="muted">{t('benchmarks.figure.none')}</span>;
  return (
    <span className="ratio">
      <Bar fill={bar} mark={mark} tone={resultOf(figure) === 'failed' ? 'bad' : 'good'} />
      <span className="ratio-text">{figure.ratio === null ? '' : fmt.percent(figure.ratio)}</span>
    </span>
  );
}
