import { describe, expect, it } from 'vitest';
import { historyRange, scoreHistory, type HistoryPoint } from './history';

const point = (id: string, at: string, score: number | null, consistency: number | null = null): HistoryPoint => ({ id, at, score, consistency });

describe('scoreHistory', () => {
  it('plots the API\'s newest-first history oldest to newest', () => {
    const h = scoreHistory([
      point('3', '2026-11-03T10:00:00Z', 90, 1.02),
      point('2', '2026-11-02T10:00:00Z', 55, 0.6),
      point('1', '2026-11-01T10:00:00Z', 92, null),
    ]);
    expect(h.xs).toEqual([Date.parse('2026-11-01T10:00:00Z') / 1000, Date.parse('2026-11-02T10:00:00Z') / 1000, Date.parse('2026-11-03T10:00:00Z') / 1000]);
    expect(h.score).toEqual([92, 55, 90]);
    expect(h.consistencyPct).toEqual([null, 60, 102]);
  });

  it('keeps an unscored run as a gap, not a zero', () => {
    expect(scoreHistory([point('2', '2026-11-02T10:00:00Z', null), point('1', '2026-11-01T10:00:00Z', 80)]).score).toEqual([80, null]);
  });

  it('orders results at the same time by id and drops a time that does not parse', () => {
    const h = scoreHistory([point('10', '2026-11-01T10:00:00Z', 1), point('9', '2026-11-01T10:00:00Z', 2), point('x', 'not a time', 3)]);
    expect(h.score).toEqual([2, 1]);
  });

  it('is empty for no history', () => {
    expect(scoreHistory([])).toEqual({ xs: [], score: [], consistencyPct: [] });
  });
});

describe('historyRange', () => {
  it.each([
    ['0 to 100 for scores and usual consistency', [80, 95], [100], [0, 100]],
    ['up to the next ten above a consistency over 100 %', [80], [104.5], [0, 110]],
    ['0 to 100 with nothing scored', [null], [null], [0, 100]],
  ] as const)('%s', (_name, score, consistencyPct, want) => {
    expect(historyRange({ xs: [], score: [...score], consistencyPct: [...consistencyPct] })).toEqual(want);
  });
});
