import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { BenchmarkMetric } from '../gql/graphql';
import { fractionDigits, METRIC_UNITS } from './figure';
import type { GuidanceFormat } from './guidance';

/** BenchmarkFormat writes the Benchmarks tab's figures in the current language. */
export interface BenchmarkFormat extends GuidanceFormat {
  /** score is a 0–100 score out of 100 ("87 / 100"). */
  score: (score: number) => string;
  /** percent is a share (1 = 100 %). */
  percent: (share: number) => string;
  /** countdown is a number of seconds as minutes and seconds ("9:05"). */
  countdown: (seconds: number) => string;
}

/**
 * useBenchmarkFormat formats numbers with Intl (the reader's digits and
 * separators, about three significant digits, see fractionDigits) and puts
 * them in their unit through i18n (benchmarks.units), so unit names and
 * their place follow the language.
 */
export function useBenchmarkFormat(): BenchmarkFormat {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  return useMemo(() => {
    const byDigits = [0, 1, 2].map((d) => new Intl.NumberFormat(lng, { maximumFractionDigits: d }));
    const whole = new Intl.NumberFormat(lng, { maximumFractionDigits: 0 });
    const num = (value: number) => (byDigits[fractionDigits(value)] ?? whole).format(value);
    const twoDigits = new Intl.NumberFormat(lng, { minimumIntegerDigits: 2, maximumFractionDigits: 0, useGrouping: false });
    const percent = new Intl.NumberFormat(lng, { style: 'percent', maximumFractionDigits: 0 });
    return {
      number: num,
      metric: (metric: BenchmarkMetric) => t(`benchmarks.metrics.${metric}`),
      inUnit: (metric: BenchmarkMetric, value: number) => t(`benchmarks.units.${METRIC_UNITS[metric]}`, { value: num(value) }),
      score: (score: number) => t('benchmarks.scoreOf', { score: whole.format(score) }),
      percent: (share: number) => percent.format(share),
      countdown: (seconds: number) => {
        const s = Math.max(0, Math.floor(seconds));
        return `${whole.format(Math.floor(s / 60))}:${twoDigits.format(s % 60)}`;
      },
    };
  }, [t, lng]);
}
