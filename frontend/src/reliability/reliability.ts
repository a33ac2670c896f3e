import type { ReliabilityAdvice, ReliabilityEventKind } from '../gql/graphql';

// Pure helpers of the Performance tab: what an event says in words, which
// projected days the recovery sentence names, which advice it gives, and
// the trend and projection as chart data. The page turns their keys and
// numbers into the reader's language.

/** DAY_MS is a day in milliseconds. */
const DAY_MS = 86_400_000;

/** EventInput is what an event's sentence is built from. */
export interface EventInput {
  kind: ReliabilityEventKind;
  magnitude: number;
  detail: string;
}

/**
 * EventSentence is an event in words: the i18n key under reliability.event
 * and the values it takes (hours and minutes offline, the percentage below
 * the baseline, the rental's id).
 */
export interface EventSentence {
  key: 'outage' | 'outageMinutes' | 'interrupted' | 'interruptedUnknown' | 'degraded' | 'degradedThrottling' | 'throttling';
  hours?: number;
  minutes?: number;
  percent?: number;
  rental?: string;
}

/** THROTTLE_REASONS are the throttles NVML reports that a benchmark's detail may name. */
const THROTTLE_REASONS = ['THERMAL_THROTTLING', 'POWER_THROTTLING'];

/**
 * eventSentence says what an event was: an outage as the scheduled time
 * offline (magnitude in seconds, rounded to the minute), an interrupted job
 * with its rental (detail) when it names one, a degraded benchmark as the percentage below
 * the baseline (magnitude 0–1) and whether throttling was seen (detail).
 */
export function eventSentence(e: EventInput): EventSentence {
  switch (e.kind) {
    case 'OUTAGE': {
      const total = Math.max(0, Math.round(e.magnitude / 60));
      const hours = Math.floor(total / 60);
      const minutes = total % 60;
      return hours > 0 ? { key: 'outage', hours, minutes } : { key: 'outageMinutes', minutes };
    }
    case 'JOB_INTERRUPTED': {
      // The demo's replayed past has no rental behind it (detail "0"): no "#0".
      const rental = e.detail.trim();
      return rental === '' || rental === '0' ? { key: 'interruptedUnknown' } : { key: 'interrupted', rental };
    }
    case 'BENCHMARK_DEGRADED': {
      const percent = Math.round(Math.max(0, Math.min(1, e.magnitude)) * 100);
      const throttled = THROTTLE_REASONS.some((r) => e.detail.toUpperCase().includes(r));
      if (percent === 0) return { key: 'throttling' };
      return throttled ? { key: 'degradedThrottling', percent } : { key: 'degraded', percent };
    }
  }
}

/** byCost orders events costliest first (the server does; a live event is kept so too). */
export function byCost<T extends { cost: number }>(events: readonly T[]): T[] {
  return [...events].sort((a, b) => b.cost - a.cost);
}

/** ProjectionSummary is the projected score a week and four weeks on. */
export interface ProjectionSummary {
  week: number | null;
  month: number | null;
}

/** PROJECTION_DAYS are the days ahead the recovery sentence names. */
export const PROJECTION_DAYS = { week: 7, month: 28 } as const;

/**
 * projectionSummary picks the projected scores nearest to 7 and 28 days
 * after asOf; null where the projection is empty, or has no point within
 * half the distance to that day (a projection that stops after a few days
 * says nothing of four weeks on).
 */
export function projectionSummary(projection: readonly { day: string; score: number }[], asOf: string): ProjectionSummary {
  const now = Date.parse(asOf);
  const pick = (days: number): number | null => {
    const target = now + days * DAY_MS;
    let best: { score: number; off: number } | null = null;
    for (const p of projection) {
      const off = Math.abs(Date.parse(p.day) - target);
      if (!best || off < best.off) best = { score: p.score, off };
    }
    return best && best.off <= (days * DAY_MS) / 2 ? best.score : null;
  };
  return { week: pick(PROJECTION_DAYS.week), month: pick(PROJECTION_DAYS.month) };
}

/**
 * adviceCodes is the advice to show, in the server's order, each once;
 * KEEP_IT_UP only when nothing else is said (it contradicts the rest).
 */
export function adviceCodes(advice: readonly ReliabilityAdvice[]): ReliabilityAdvice[] {
  const unique = [...new Set(advice)];
  const actions = unique.filter((a) => a !== 'KEEP_IT_UP');
  return actions.length > 0 ? actions : ['KEEP_IT_UP'];
}

/** TrendChartData is the trend and its projection on one time axis (seconds). */
export interface TrendChartData {
  xs: number[];
  scores: (number | null)[];
  projected: (number | null)[];
}

/**
 * trendChartData puts the daily scores and the projection on one axis: the
 * projection's line starts at the last measured day, so it reads as the
 * trend's continuation. With no daily scores yet, the score now (asOf)
 * stands in for the trend.
 */
export function trendChartData(
  trend: readonly { day: string; score: number }[],
  projection: readonly { day: string; score: number }[],
  now?: { day: string; score: number },
): TrendChartData {
  // With no daily score kept yet (a new provider, or before the first
  // daily snapshot), the score now is the trend's one point.
  if (trend.length === 0 && now) trend = [now];
  const at = new Map<number, { score: number | null; projected: number | null }>();
  const slot = (day: string) => {
    const x = Math.floor(Date.parse(day) / 1000);
    let s = at.get(x);
    if (!s) {
      s = { score: null, projected: null };
      at.set(x, s);
    }
    return s;
  };
  for (const p of trend) slot(p.day).score = p.score;
  for (const p of projection) slot(p.day).projected = p.score;
  const last = trend.at(-1);
  if (last && projection.length > 0) {
    const s = slot(last.day);
    if (s.projected === null) s.projected = last.score;
  }
  const xs = [...at.keys()].sort((a, b) => a - b);
  return { xs, scores: xs.map((x) => at.get(x)!.score), projected: xs.map((x) => at.get(x)!.projected) };
}

/** percent is a 0–1 component as a whole percentage, floored to one decimal so 0.999 does not read 100. */
export function percent(fraction: number): number {
  return Math.floor(Math.max(0, Math.min(1, fraction)) * 1000) / 10;
}

/**
 * trendRange is the trend chart's score axis: up to 100, down to a round
 * five under the lowest score, never under 0; the floor is taken in (its
 * line drawn) when it lies within 10 points of the lowest score, and
 * otherwise named by the legend alone. A 94–100 trend then fills the
 * chart instead of lying flat along the top of 0–100.
 */
export function trendRange(values: readonly (number | null)[], floor: number): [number, number] {
  const scores = values.filter((v): v is number => v !== null);
  let lowest = scores.length > 0 ? Math.min(...scores) : floor;
  if (floor > lowest - 10) lowest = Math.min(lowest, floor);
  return [Math.max(0, Math.floor((lowest - 5) / 5) * 5), 100];
}
