import { useTranslation } from 'react-i18next';
import { isolate } from '../ui/format';
import { resultOf, sortFigures } from './figure';
import { useBenchmarkFormat } from './format';
import type { Figure } from './FiguresTable';

/**
 * FigureStrip is a run's figures at a glance: one chip per metric, passed,
 * below its minimum or not supported (the colour and a mark, and the word
 * for screen readers), with the measured figure against the minimum on
 * hover. The table of every figure is one tap away, in a details below it.
 */
export function FigureStrip({ figures, label }: { figures: readonly Figure[]; label: string }) {
  const { t } = useTranslation();
  const fmt = useBenchmarkFormat();
  const inUnit = (figure: Figure, v: number | null) => isolate(v === null ? t('benchmarks.figure.none') : fmt.inUnit(figure.metric, v));
  return (
    <ul className="bench-strip" aria-label={label} data-testid="bench-strip">
      {sortFigures(figures).map((figure) => {
        const result = resultOf(figure);
        return (
          <li
            key={figure.metric}
            className={`bench-chip bench-chip-${result}`}
            data-testid="bench-strip-item"
            data-metric={figure.metric}
            data-result={result}
            title={
              figure.supported
                ? t('benchmarks.strip.against', { measured: inUnit(figure, figure.measured), minimum: inUnit(figure, figure.minimum) })
                : t('benchmarks.figure.unsupported')
            }
          >
            <span className="bench-chip-metric">{fmt.metric(figure.metric)}</span>
            <span className="visually-hidden">{t(`benchmarks.figure.${result}`)}</span>
          </li>
        );
      })}
    </ul>
  );
}
