import type { BenchmarkGuidanceFieldsFragment, BenchmarkMetric } from '../gql/graphql';
import { isolate } from '../ui/format';
import { isMetric } from './figure';

/** Guidance is one thing to check, as the API sends it. */
export type Guidance = BenchmarkGuidanceFieldsFragment;

/** GuidanceFormat is what turning params into text needs of the page's language. */
export interface GuidanceFormat {
  /** number writes a plain number ("62", "1,234.5"). */
  number: (value: number) => string;
  /** metric names a metric ("Storage read"). */
  metric: (metric: BenchmarkMetric) => string;
  /** inUnit writes a figure of metric in its unit ("123 MB/s"). */
  inUnit: (metric: BenchmarkMetric, value: number) => string;
}

/** FIGURE_PARAMS are the params that are a figure in the unit of the guidance's metric param. */
const FIGURE_PARAMS = new Set(['measured', 'expected', 'minimum']);

/**
 * guidanceValues turns a guidance's params into interpolation values in the
 * reader's language: `metric` becomes the metric's name; measured, expected
 * and minimum are written in that metric's unit; any other number is
 * written as a number; what is not a number (a driver error's name, the
 * server's "?" for an unknown) is kept as sent. Each value is isolated, as
 * a Latin name inside an Arabic sentence must keep its direction.
 */
export function guidanceValues(g: Guidance, fmt: GuidanceFormat): Record<string, string> {
  const raw = Object.fromEntries(g.params.map((p) => [p.key, p.value]));
  const metric = raw.metric !== undefined && isMetric(raw.metric) ? raw.metric : null;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const n = value.trim() === '' ? Number.NaN : Number(value);
    let text = value;
    if (key === 'metric' && metric) text = fmt.metric(metric);
    else if (Number.isFinite(n)) text = metric && FIGURE_PARAMS.has(key) ? fmt.inUnit(metric, n) : fmt.number(n);
    out[key] = isolate(text);
  }
  return out;
}

/** Translate is the part of i18next's t guidanceText uses. */
export type Translate = (key: string, options: Record<string, unknown> & { defaultValue: string }) => string;

/**
 * guidanceText is a guidance in the reader's language: the text of its code
 * (benchmarks.guidance.CODE) with its params, or the server's English
 * message for a code this SPA does not know yet.
 */
export function guidanceText(t: Translate, g: Guidance, fmt: GuidanceFormat): string {
  return t(`benchmarks.guidance.${g.code}`, { ...guidanceValues(g, fmt), defaultValue: g.message });
}
