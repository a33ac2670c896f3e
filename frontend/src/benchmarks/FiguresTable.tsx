import { useTranslation } from 'react-i18next';
import type { BenchmarkFigureFieldsFragment } from '../gql/graphql';
import { minimumMark, ratioBar, sortFigures } from './figure';
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
  return (
    <table className="data-table bench-figures stacked-table" data-testid="bench-figures">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{t('benchmarks.figure.metric')}</th>
          <th scope="col">{t('benchmarks.figure.measured')}</th>
          <th scope="col">{t('benchmarks.figure.expected')}</th>
          <th scope="col">{t('benchmarks.figure.minimum')}</th>
          <th scope="col">{t('benchmarks.figure.ratio')}</th>
          <th scope="col">{t('benchmarks.figure.result')}</th>
        </tr>
      </thead>
      <tbody>
        {sortFigures(figures).map((figure) => (
          <FigureRow key={figure.metric} figure={figure} />
        ))}
      </tbody>
    </table>
  );
}

function FigureRow({ figure }: { figure: Figure }) {
  const { t } = useTranslation();
  const fmt = useBenchmarkFormat();
  const value = (v: number | null) => (v === null ? <span className="muted">{t('benchmarks.figure.none')}</span> : fmt.inUnit(figure.metric, v));
  const bar = ratioBar(figure);
  const mark = minimumMark(figure);
  const result = !figure.supported ? 'unsupported' : figure.passed ? 'passed' : 'failed';
  return (
    <tr data-testid="bench-figure" data-metric={figure.metric} data-supported={figure.supported} data-passed={figure.passed} data-ratio={figure.ratio ?? ''}>
      <th scope="row" data-label={t('benchmarks.figure.metric')}>
        {fmt.metric(figure.metric)}
      </th>
      <td data-label={t('benchmarks.figure.measured')} data-testid="bench-figure-measured">
        {figure.supported ? value(figure.measured) : <span className="muted">{t('benchmarks.figure.unsupported')}</span>}
      </td>
      <td data-label={t('benchmarks.figure.expected')}>{value(figure.expected)}</td>
      <td data-label={t('benchmarks.figure.minimum')}>{figure.minimum === null ? <span className="muted">{t('benchmarks.figure.noThreshold')}</span> : value(figure.minimum)}</td>
      <td data-label={t('benchmarks.figure.ratio')}>
        {bar === null ? (
          <span className="muted">{t('benchmarks.figure.none')}</span>
        ) : (
          <span className="ratio">
            <span className={`ratio-bar ratio-${result}`} aria-hidden="true">
              <span className="ratio-fill" style={{ inlineSize: `${bar}%` }} />
              {mark !== null && <span className="ratio-min" style={{ insetInlineStart: `${mark}%` }} />}
            </span>
            <span className="ratio-text">{figure.ratio === null ? '' : fmt.percent(figure.ratio)}</span>
          </span>
        )}
      </td>
      <td data-label={t('benchmarks.figure.result')}>
        <span className={`status bench-result-${result}`} data-testid="bench-figure-result">
          {t(`benchmarks.figure.${result}`)}
        </span>
      </td>
    </tr>
  );
}
