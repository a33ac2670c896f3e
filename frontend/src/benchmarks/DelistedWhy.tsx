import { useTranslation } from 'react-i18next';
import { isolate } from '../ui/format';
import { useBenchmarkFormat } from './format';
import { guidanceText } from './guidance';
import type { GpuStanding } from './standing';

/**
 * DelistedWhy is why a delisted GPU is delisted (each metric under its
 * minimum, with the figures) and what to check (the server's guidance).
 */
export function DelistedWhy({ gpu }: { gpu: GpuStanding }) {
  const { t } = useTranslation();
  const fmt = useBenchmarkFormat();
  const value = (metric: GpuStanding['shortfalls'][number]['metric'], v: number | null) =>
    isolate(v === null ? t('benchmarks.figure.none') : fmt.inUnit(metric, v));
  return (
    <div className="notice warning bench-why" data-testid="bench-why">
      {gpu.shortfalls.length > 0 && (
        <>
          <p className="bench-why-title">{t('benchmarks.why')}</p>
          <ul className="bench-list">
            {gpu.shortfalls.map((s) => (
              <li key={s.metric} data-testid="bench-shortfall" data-metric={s.metric}>
                {t('benchmarks.shortfall', {
                  metric: fmt.metric(s.metric),
                  measured: value(s.metric, s.measured),
                  expected: value(s.metric, s.expected),
                  minimum: value(s.metric, s.minimum),
                })}
              </li>
            ))}
          </ul>
        </>
      )}
      {gpu.guidance.length > 0 && (
        <>
          <p className="bench-why-title">{t('benchmarks.whatToCheck')}</p>
          <ul className="bench-list">
            {gpu.guidance.map((g, i) => (
              <li key={`${g.code}-${i}`} data-testid="bench-guidance" data-code={g.code}>
                {guidanceText((key, options) => t(key as 'benchmarks.title', options), g, fmt)}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
