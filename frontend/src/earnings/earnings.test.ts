import { describe, expect, it } from 'vitest';
import {
  csvFileName,
  daysIn,
  historySeries,
  historyVariables,
  liveNetMicros,
  midnightIn,
  presetGrouping,
  presetRange,
  rangeProblem,
  sharesOf,
  sumMicros,
  todayIn,
} from './earnings';

describe('liveNetMicros', () => {
  const asOf = '2026-03-02T10:00:00Z';
  const at = (iso: string) => Date.parse(iso);
  const cases: { description: string; net: string; rate: string; now: number; want: bigint }[] = [
    { description: 'at asOf it is the net', net: '12.500000', rate: '3.600000', now: at(asOf), want: 12_500_000n },
    { description: 'a second at 3.6 USDC/h adds 1000 micro-USDC', net: '12.500000', rate: '3.600000', now: at('2026-03-02T10:00:01Z'), want: 12_501_000n },
    { description: 'an hour adds the rate', net: '12.5', rate: '2.15', now: at('2026-03-02T11:00:00Z'), want: 14_650_000n },
    { description: 'part of a micro-USDC is not shown yet', net: '0', rate: '0.000001', now: at('2026-03-02T10:59:59.999Z'), want: 0n },
    { description: 'a clock behind the server does not take it back', net: '1', rate: '100', now: at('2026-03-02T09:59:00Z'), want: 1_000_000n },
    { description: 'nothing running, nothing added', net: '7.25', rate: '0.000000', now: at('2026-03-09T10:00:00Z'), want: 7_250_000n },
    { description: 'large amounts stay exact', net: '9007199254740993.000001', rate: '3600', now: at('2026-03-02T10:00:01Z'), want: 9_007_199_254_740_994_000_001n },
  ];
  for (const c of cases) {
    it(c.description, () => expect(liveNetMicros({ net: c.net, accrualPerHour: c.rate, asOf }, c.now)).toBe(c.want));
  }

  it('grows by the rate every second, exactly', () => {
    const s = { net: '0.000000', accrualPerHour: '7.000000', asOf };
    const seconds = Array.from({ length: 5 }, (_, i) => liveNetMicros(s, at(asOf) + i * 1000));
    expect(seconds.slice(1).map((v, i) => v - (seconds[i] ?? 0n))).toEqual([1944n, 1944n, 1945n, 1944n]);
  });
});

describe('ranges', () => {
  it('presets end today, both ends included', () => {
    expect(presetRange('DAYS_7', '2026-03-02')).toEqual({ from: '2026-02-24', to: '2026-03-02' });
    expect(presetRange('DAYS_30', '2026-03-02')).toEqual({ from: '2026-02-01', to: '2026-03-02' });
    expect(presetRange('MONTHS_12', '2026-03-02')).toEqual({ from: '2025-04-01', to: '2026-03-02' });
    expect(daysIn(presetRange('DAYS_7', '2026-03-02'))).toBe(7);
    expect(presetGrouping('MONTHS_12')).toBe('MONTH');
    expect(presetGrouping('DAYS_7')).toBe('DAY');
  });

  const problems: { description: string; from: string; to: string; groupBy: 'HOUR' | 'DAY' | 'WEEK' | 'MONTH'; want: ReturnType<typeof rangeProblem> }[] = [
    { description: 'a day by the hour is fine', from: '2026-03-02', to: '2026-03-02', groupBy: 'HOUR', want: null },
    { description: '31 days by the hour is fine', from: '2026-01-01', to: '2026-01-31', groupBy: 'HOUR', want: null },
    { description: '32 days by the hour is refused', from: '2026-01-01', to: '2026-02-01', groupBy: 'HOUR', want: 'HOUR_TOO_LONG' },
    { description: 'a year by the day is fine', from: '2025-03-03', to: '2026-03-02', groupBy: 'DAY', want: null },
    { description: 'a missing date is required', from: '', to: '2026-03-02', groupBy: 'DAY', want: 'REQUIRED' },
    { description: 'a date that does not exist is invalid', from: '2026-02-30', to: '2026-03-02', groupBy: 'DAY', want: 'INVALID' },
    { description: 'to before from is empty', from: '2026-03-02', to: '2026-03-01', groupBy: 'DAY', want: 'EMPTY' },
    { description: 'more buckets than the server gives are refused', from: '1990-01-01', to: '2026-03-02', groupBy: 'DAY', want: 'TOO_MANY_BUCKETS' },
    { description: 'the same years by the month are fine', from: '1990-01-01', to: '2026-03-02', groupBy: 'MONTH', want: null },
  ];
  for (const c of problems) {
    it(c.description, () => expect(rangeProblem({ from: c.from, to: c.to }, c.groupBy)).toBe(c.want));
  }
});

describe('the provider\'s time zone', () => {
  it('today follows the zone', () => {
    const now = Date.parse('2026-03-02T23:30:00Z');
    expect(todayIn('UTC', now)).toBe('2026-03-02');
    expect(todayIn('Europe/Lisbon', now)).toBe('2026-03-02');
    expect(todayIn('Asia/Kolkata', now)).toBe('2026-03-03');
    expect(todayIn('America/New_York', now)).toBe('2026-03-02');
  });

  it('a day starts at the zone\'s midnight, summer time included', () => {
    expect(midnightIn('2026-03-02', 'UTC')).toBe('2026-03-02T00:00:00.000Z');
    expect(midnightIn('2026-07-01', 'Europe/Lisbon')).toBe('2026-06-30T23:00:00.000Z');
    expect(midnightIn('2026-01-15', 'Asia/Kolkata')).toBe('2026-01-14T18:30:00.000Z');
    expect(midnightIn('2026-03-09', 'America/New_York')).toBe('2026-03-09T04:00:00.000Z');
    expect(midnightIn('2026-03-08', 'America/New_York')).toBe('2026-03-08T05:00:00.000Z');
  });

  it('history runs to the end of the last day', () => {
    expect(historyVariables({ from: '2026-03-01', to: '2026-03-02' }, 'HOUR', 'Europe/Lisbon')).toEqual({
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-03T00:00:00.000Z',
      groupBy: 'HOUR',
    });
  });
});

describe('CSV and series', () => {
  it('names the download after the range', () => {
    expect(csvFileName({ from: '2026-02-24', to: '2026-03-02' })).toBe('earnings-2026-02-24-2026-03-02.csv');
  });

  it('turns buckets into chart arrays and sums exactly', () => {
    const buckets = [
      { start: '2026-03-01T00:00:00Z', gross: '1.000000', net: '0.850000' },
      { start: '2026-03-02T00:00:00Z', gross: '0.100000', net: '0.085000' },
    ];
    expect(historySeries(buckets)).toEqual({ xs: [1772323200, 1772409600], net: [0.85, 0.085], gross: [1, 0.1] });
    expect(sumMicros(buckets.map((b) => b.net))).toBe(935_000n);
  });
});

describe('sharesOf', () => {
  it('scales bars to the largest and writes each as a part of the sum', () => {
    expect(sharesOf(['3.000000', '1.000000', '0.000000'])).toEqual([
      { bar: 100, ofTotal: 0.75 },
      { bar: 33.3, ofTotal: 0.25 },
      { bar: 0, ofTotal: 0 },
    ]);
  });

  it('keeps micro-USDC apart that a float would merge', () => {
    const [big, small] = sharesOf(['9007199254.740993', '0.000001']);
    expect(big).toEqual({ bar: 100, ofTotal: 0.9999 });
    expect(small?.bar).toBe(0);
  });

  it('draws a net below zero and an empty period as empty bars', () => {
    expect(sharesOf(['-1.000000', '2.000000'])).toEqual([
      { bar: 0, ofTotal: 0 },
      { bar: 100, ofTotal: 1 },
    ]);
    expect(sharesOf(['0.000000', '0.000000'])).toEqual([
      { bar: 0, ofTotal: 0 },
      { bar: 0, ofTotal: 0 },
    ]);
  });
});
