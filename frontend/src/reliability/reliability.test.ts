import { describe, expect, it } from 'vitest';
import { adviceCodes, byCost, eventSentence, percent, projectionSummary, trendChartData, trendRange } from './reliability';

describe('eventSentence', () => {
  const cases = [
    { name: 'an outage of 3 hours in hours and minutes', e: { kind: 'OUTAGE', magnitude: 10_800, detail: '' }, want: { key: 'outage', hours: 3, minutes: 0 } },
    { name: 'an outage rounds to the minute', e: { kind: 'OUTAGE', magnitude: 5_430, detail: '' }, want: { key: 'outage', hours: 1, minutes: 31 } },
    { name: 'an outage under an hour in minutes', e: { kind: 'OUTAGE', magnitude: 1_500, detail: '' }, want: { key: 'outageMinutes', minutes: 25 } },
    { name: 'an interrupted job names its rental', e: { kind: 'JOB_INTERRUPTED', magnitude: 1, detail: '42' }, want: { key: 'interrupted', rental: '42' } },
    { name: 'an interrupted job without a rental says so', e: { kind: 'JOB_INTERRUPTED', magnitude: 1, detail: '0' }, want: { key: 'interruptedUnknown' } },
    { name: 'a degraded benchmark as a percentage', e: { kind: 'BENCHMARK_DEGRADED', magnitude: 0.18, detail: 'gpu-7' }, want: { key: 'degraded', percent: 18 } },
    { name: 'a degraded benchmark with thermal throttling', e: { kind: 'BENCHMARK_DEGRADED', magnitude: 0.181, detail: 'gpu-7 THERMAL_THROTTLING' }, want: { key: 'degradedThrottling', percent: 18 } },
    { name: 'power throttling too', e: { kind: 'BENCHMARK_DEGRADED', magnitude: 0.05, detail: 'POWER_THROTTLING' }, want: { key: 'degradedThrottling', percent: 5 } },
    { name: 'throttling with no shortfall', e: { kind: 'BENCHMARK_DEGRADED', magnitude: 0, detail: 'THERMAL_THROTTLING' }, want: { key: 'throttling' } },
  ] as const;
  for (const c of cases) {
    it(c.name, () => {
      expect(eventSentence(c.e)).toEqual(c.want);
    });
  }
});

describe('byCost', () => {
  it('puts the costliest first', () => {
    expect(byCost([{ cost: 1 }, { cost: 2.4 }, { cost: 0.3 }]).map((e) => e.cost)).toEqual([2.4, 1, 0.3]);
  });
});

describe('projectionSummary', () => {
  const asOf = '2026-12-01T12:00:00Z';
  const day = (n: number) => new Date(Date.parse('2026-12-01T00:00:00Z') + n * 86_400_000).toISOString();
  const projection = Array.from({ length: 28 }, (_, i) => ({ day: day(i + 1), score: 80 + Math.floor(i / 2) }));

  it('picks the scores 7 and 28 days on', () => {
    expect(projectionSummary(projection, asOf)).toEqual({ week: 83, month: 93 });
  });
  it('says nothing of an empty projection', () => {
    expect(projectionSummary([], asOf)).toEqual({ week: null, month: null });
  });
  it('says nothing of four weeks on when the projection stops after a few days', () => {
    expect(projectionSummary(projection.slice(0, 8), asOf)).toEqual({ week: 83, month: null });
  });
});

describe('adviceCodes', () => {
  it('keeps the order and says each once', () => {
    expect(adviceCodes(['STAY_ONLINE_IN_SCHEDULE', 'FIX_THROTTLING', 'STAY_ONLINE_IN_SCHEDULE'])).toEqual(['STAY_ONLINE_IN_SCHEDULE', 'FIX_THROTTLING']);
  });
  it('drops KEEP_IT_UP beside real advice', () => {
    expect(adviceCodes(['KEEP_IT_UP', 'AVOID_INTERRUPTIONS'])).toEqual(['AVOID_INTERRUPTIONS']);
  });
  it('says KEEP_IT_UP when there is nothing else', () => {
    expect(adviceCodes([])).toEqual(['KEEP_IT_UP']);
  });
});

describe('trendChartData', () => {
  it('continues the trend with the projection from the last measured day', () => {
    const d = trendChartData(
      [
        { day: '2026-11-30T00:00:00Z', score: 70 },
        { day: '2026-12-01T00:00:00Z', score: 72 },
      ],
      [{ day: '2026-12-02T00:00:00Z', score: 75 }],
    );
    expect(d.xs).toHaveLength(3);
    expect(d.scores).toEqual([70, 72, null]);
    expect(d.projected).toEqual([null, 72, 75]);
  });
});

describe('trendChartData without daily scores', () => {
  it('starts the projection from the score now', () => {
    const d = trendChartData([], [{ day: '2026-12-03T00:00:00Z', score: 96 }], { day: '2026-12-02T01:07:00Z', score: 95 });
    expect(d.scores).toEqual([95, null]);
    expect(d.projected).toEqual([95, 96]);
  });
});

describe('percent', () => {
  it('does not round 99.96 % up to 100', () => {
    expect(percent(0.9996)).toBe(99.9);
    expect(percent(1)).toBe(100);
    expect(percent(0.5)).toBe(50);
  });
});

describe('trendRange', () => {
  it('fits the axis to the scores in fives up to 100, taking in a floor near them', () => {
    expect(trendRange([94, 96, null, 100], 70)).toEqual([85, 100]);
    expect(trendRange([94, 96, 100], 90)).toEqual([85, 100]);
    expect(trendRange([78, 80], 70)).toEqual([65, 100]);
    expect(trendRange([97, 99], 98)).toEqual([90, 100]);
    expect(trendRange([3, 50], 70)).toEqual([0, 100]);
    expect(trendRange([null], 70)).toEqual([65, 100]);
  });
});
