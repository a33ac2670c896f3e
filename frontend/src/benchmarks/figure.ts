import type { BenchmarkMetric } from '../gql/graphql';

/** Unit is the unit a metric is measured in; its name is translated under benchmarks.units. */
export type Unit = 'tflops' | 'gbs' | 'ms' | 'mbits' | 'mbs' | 'iops';

/** METRIC_UNITS is each metric's unit (the schema names it in the metric). */
export const METRIC_UNITS: Readonly<Record<BenchmarkMetric, Unit>> = {
  FP32_TFLOPS: 'tflops',
  FP16_TFLOPS: 'tflops',
  TENSOR_FP16_TFLOPS: 'tflops',
  TENSOR_BF16_TFLOPS: 'tflops',
  MEMORY_READ_GBS: 'gbs',
  MEMORY_WRITE_GBS: 'gbs',
  MEMORY_COPY_GBS: 'gbs',
  NETWORK_LATENCY_MS: 'ms',
  NETWORK_DOWNLOAD_MBITS: 'mbits',
  NETWORK_UPLOAD_MBITS: 'mbits',
  STORAGE_WRITE_MBS: 'mbs',
  STORAGE_READ_MBS: 'mbs',
  STORAGE_RANDOM_READ_IOPS: 'iops',
};

/** METRIC_ORDER is the order figures are shown in: compute, memory, network, storage. */
export const METRIC_ORDER: readonly BenchmarkMetric[] = Object.keys(METRIC_UNITS) as BenchmarkMetric[];

/** isMetric says whether a string (a guidance param) is a metric this SPA knows. */
export function isMetric(value: string): value is BenchmarkMetric {
  return Object.hasOwn(METRIC_UNITS, value);
}

/** lowerIsBetter says whether a metric passes by staying under its threshold (latency). */
export function lowerIsBetter(metric: BenchmarkMetric): boolean {
  return metric === 'NETWORK_LATENCY_MS';
}

/**
 * fractionDigits is how many decimals a figure is shown with: three
 * significant digits or so (1.23, 12.3, 123, 12,345), enough to compare
 * with the reference and not more than the measurement is worth.
 */
export function fractionDigits(value: number): number {
  const abs = Math.abs(value);
  if (abs >= 100) return 0;
  if (abs >= 10) return 1;
  return 2;
}

/** FigureLike is what ordering and bars need of a BenchmarkFigure. */
export interface FigureLike {
  metric: BenchmarkMetric;
  supported: boolean;
  ratio: number | null;
}

/** FigureResult is how a figure came out against its minimum. */
export type FigureResult = 'unsupported' | 'passed' | 'failed';

/** resultOf is a figure's result: not supported, passed, or below its minimum. */
export function resultOf(figure: { supported: boolean; passed: boolean }): FigureResult {
  return !figure.supported ? 'unsupported' : figure.passed ? 'passed' : 'failed';
}

/** sortFigures orders figures by METRIC_ORDER (unknown metrics last, as they came). */
export function sortFigures<T extends FigureLike>(figures: readonly T[]): T[] {
  const rank = (m: BenchmarkMetric) => {
    const i = METRIC_ORDER.indexOf(m);
    return i < 0 ? METRIC_ORDER.length : i;
  };
  return [...figures].sort((a, b) => rank(a.metric) - rank(b.metric));
}

/**
 * ratioBar is how much of the bar a figure fills, 0–100 %, against the
 * expected figure: full at the expected figure and above. An unsupported
 * or unmeasured figure has no bar (null), never an empty one: it is not 0.
 * For latency, lower is better, so the bar is expected over measured.
 */
export function ratioBar(figure: FigureLike): number | null {
  if (!figure.supported || figure.ratio === null || !Number.isFinite(figure.ratio)) return null;
  const share = lowerIsBetter(figure.metric) ? (figure.ratio > 0 ? 1 / figure.ratio : 1) : figure.ratio;
  return Math.round(Math.min(1, Math.max(0, share)) * 1000) / 10;
}

/** minimumMark is where the threshold sits on the bar, 0–100 %, or null. */
export function minimumMark(figure: { metric: BenchmarkMetric; minimum: number | null; expected: number | null }): number | null {
  const { minimum, expected } = figure;
  if (minimum === null || expected === null || expected <= 0 || minimum <= 0) return null;
  const share = lowerIsBetter(figure.metric) ? expected / minimum : minimum / expected;
  return Math.round(Math.min(1, Math.max(0, share)) * 1000) / 10;
}
