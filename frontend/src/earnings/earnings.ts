import type { EarningsGrouping } from '../gql/graphql';
import { chartValue, toMicros } from '../ui/usdc';

// The Earnings tab's arithmetic, without React: the live total between
// events (BigInt micro-USDC, never a float), the history's date ranges in
// the provider's time zone, what the range picker refuses, and the CSV's
// file name.

/** MS_PER_HOUR is accrualPerHour's hour in milliseconds. */
const MS_PER_HOUR = 3_600_000n;

/** Snapshot is what liveNetMicros needs of an Earnings: the period's net, the rate and when both were taken. */
export interface Snapshot {
  net: string;
  accrualPerHour: string;
  asOf: string;
}

/**
 * liveNetMicros is the period's net now, in micro-USDC: the snapshot's net
 * plus accrualPerHour for the time since asOf (none before it, so a clock
 * behind the server's never takes the total back). The division truncates:
 * the total shown never runs ahead of what the server will meter.
 */
export function liveNetMicros(s: Snapshot, nowMs: number): bigint {
  const net = toMicros(s.net);
  const asOfMs = Date.parse(s.asOf);
  if (Number.isNaN(asOfMs)) return net;
  const elapsed = BigInt(Math.max(0, Math.floor(nowMs - asOfMs)));
  return net + (toMicros(s.accrualPerHour) * elapsed) / MS_PER_HOUR;
}

/** RangePreset is a choice of the range picker. */
export type RangePreset = 'DAYS_7' | 'DAYS_30' | 'MONTHS_12' | 'CUSTOM';

/** RANGE_PRESETS are the picker's choices, in order. */
export const RANGE_PRESETS: readonly RangePreset[] = ['DAYS_7', 'DAYS_30', 'MONTHS_12', 'CUSTOM'];

/** GROUPINGS are the history's bucket sizes, in order. */
export const GROUPINGS: readonly EarningsGrouping[] = ['HOUR', 'DAY', 'WEEK', 'MONTH'];

/** MAX_HOUR_DAYS is the longest range the picker groups by hour. */
export const MAX_HOUR_DAYS = 31;

/** MAX_BUCKETS is the server's limit on history's buckets. */
export const MAX_BUCKETS = 10_000;

/**
 * DateRange is a range of whole days as the picker shows them: from and to
 * are calendar dates (YYYY-MM-DD), both included.
 */
export interface DateRange {
  from: string;
  to: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** parseDate is a YYYY-MM-DD date as its UTC midnight in ms, or NaN when it is not a real date. */
function parseDate(date: string): number {
  const m = DATE.exec(date);
  if (!m) return Number.NaN;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  return back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? ms : Number.NaN;
}

function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** addDays moves a YYYY-MM-DD date by days. */
export function addDays(date: string, days: number): string {
  return formatDate(parseDate(date) + days * 86_400_000);
}

/** firstOfMonth is the first day of date's month moved by months. */
export function firstOfMonth(date: string, months: number): string {
  const d = new Date(parseDate(date));
  return formatDate(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
}

/** daysIn is how many days a range holds, both ends included. */
export function daysIn(range: DateRange): number {
  return Math.round((parseDate(range.to) - parseDate(range.from)) / 86_400_000) + 1;
}

/** todayIn is today's date (YYYY-MM-DD) in timeZone at nowMs. */
export function todayIn(timeZone: string, nowMs: number): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(nowMs);
}

/** presetRange is a preset's days, ending today in the provider's time zone. */
export function presetRange(preset: Exclude<RangePreset, 'CUSTOM'>, today: string): DateRange {
  switch (preset) {
    case 'DAYS_7':
      return { from: addDays(today, -6), to: today };
    case 'DAYS_30':
      return { from: addDays(today, -29), to: today };
    case 'MONTHS_12':
      return { from: firstOfMonth(today, -11), to: today };
  }
}

/** presetGrouping is the bucket size a preset starts with. */
export function presetGrouping(preset: RangePreset): EarningsGrouping {
  return preset === 'MONTHS_12' ? 'MONTH' : 'DAY';
}

/** RangeProblem is why the picker does not ask for a range. */
export type RangeProblem = 'REQUIRED' | 'INVALID' | 'EMPTY' | 'HOUR_TOO_LONG' | 'TOO_MANY_BUCKETS';

const APPROX_DAYS: Record<EarningsGrouping, number> = { HOUR: 1 / 24, DAY: 1, WEEK: 7, MONTH: 28 };

/**
 * rangeProblem says why a range and grouping are refused, or null: both
 * dates given and real, to not before from, grouping by hour over at most
 * MAX_HOUR_DAYS days (a longer hourly chart is unreadable), and no more
 * buckets than the server allows.
 */
export function rangeProblem(range: DateRange, groupBy: EarningsGrouping): RangeProblem | null {
  if (range.from === '' || range.to === '') return 'REQUIRED';
  if (Number.isNaN(parseDate(range.from)) || Number.isNaN(parseDate(range.to))) return 'INVALID';
  const days = daysIn(range);
  if (days < 1) return 'EMPTY';
  if (groupBy === 'HOUR' && days > MAX_HOUR_DAYS) return 'HOUR_TOO_LONG';
  if (days / APPROX_DAYS[groupBy] > MAX_BUCKETS) return 'TOO_MANY_BUCKETS';
  return null;
}

/**
 * zoneOffsetMs is how far timeZone's wall clock is ahead of UTC at the
 * instant ms (negative west of Greenwich).
 */
export function zoneOffsetMs(timeZone: string, ms: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(ms);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * midnightIn is the instant (RFC 3339, UTC) a date starts in timeZone: a
 * day of history is the provider's day, as the server's buckets are.
 */
export function midnightIn(date: string, timeZone: string): string {
  const wall = parseDate(date);
  let ms = wall - zoneOffsetMs(timeZone, wall);
  // Once more at the guess: the offset may differ there (a DST change).
  ms = wall - zoneOffsetMs(timeZone, ms);
  return new Date(ms).toISOString();
}

/** HistoryVariables are history's arguments for a range. */
export interface HistoryVariables {
  from: string;
  to: string;
  groupBy: EarningsGrouping;
}

/** historyVariables asks for a range's days, to the end of its last day (to is exclusive). */
export function historyVariables(range: DateRange, groupBy: EarningsGrouping, timeZone: string): HistoryVariables {
  return { from: midnightIn(range.from, timeZone), to: midnightIn(addDays(range.to, 1), timeZone), groupBy };
}

/** csvFileName is the download's name: earnings-<from>-<to>.csv, the range's dates as chosen. */
export function csvFileName(range: DateRange): string {
  return `earnings-${range.from}-${range.to}.csv`;
}

/** HistorySeries is history ready for TimeSeriesChart: x in seconds, USDC as chart values. */
export interface HistorySeries {
  xs: number[];
  net: number[];
  gross: number[];
}

/** historySeries turns buckets into the chart's arrays. */
export function historySeries(buckets: readonly { start: string; gross: string; net: string }[]): HistorySeries {
  return {
    xs: buckets.map((b) => Math.floor(Date.parse(b.start) / 1000)),
    net: buckets.map((b) => chartValue(b.net)),
    gross: buckets.map((b) => chartValue(b.gross)),
  };
}

/** sumMicros adds amounts exactly. */
export function sumMicros(amounts: readonly string[]): bigint {
  return amounts.reduce((sum, a) => sum + toMicros(a), 0n);
}

/** Share is one amount drawn among others: bar is 0–100 % of the largest, ofTotal 0–1 of their sum. */
export interface Share {
  bar: number;
  ofTotal: number;
}

/**
 * sharesOf draws amounts as bars, exactly (BigInt micro-USDC): the largest
 * fills its bar and the others are to scale, and each is also a part of
 * their sum, for the percentage written beside the bar. A negative amount
 * (a period with more refunded than earned) draws as nothing; nothing
 * earned draws every bar empty rather than dividing by zero.
 */
export function sharesOf(amounts: readonly string[]): Share[] {
  const micros = amounts.map((a) => {
    const m = toMicros(a);
    return m > 0n ? m : 0n;
  });
  const largest = micros.reduce((a, b) => (b > a ? b : a), 0n);
  const total = micros.reduce((a, b) => a + b, 0n);
  return micros.map((m) => ({
    bar: largest > 0n ? Number((m * 1000n) / largest) / 10 : 0,
    ofTotal: total > 0n ? Number((m * 10000n) / total) / 10000 : 0,
  }));
}
