import { describe, expect, it } from 'vitest';
import type { RentalState } from '../gql/graphql';
import { canStop, followLog, isBehind, isEnded, mergeRental } from './rentals';

const r = (id: string, state: RentalState, createdAt: string) => ({ id, state, createdAt });

describe('rental states', () => {
  it('says which are over and which may be stopped', () => {
    expect(['STARTING', 'RUNNING', 'STOPPING', 'COMPLETED', 'STOPPED', 'FAILED', 'INTERRUPTED'].map((s) => [s, isEnded(s as RentalState), canStop(s as RentalState)])).toEqual([
      ['STARTING', false, true],
      ['RUNNING', false, true],
      ['STOPPING', false, false],
      ['COMPLETED', true, false],
      ['STOPPED', true, false],
      ['FAILED', true, false],
      ['INTERRUPTED', true, false],
    ]);
  });
});

describe('isBehind', () => {
  const s = (state: RentalState) => ({ state });
  it('takes a copy in an earlier state as late news, one in the same or a later state as newer', () => {
    // The stopRental answer (STOPPING) read after the event that it stopped.
    expect(isBehind(s('STOPPED'), s('STOPPING'))).toBe(true);
    expect(isBehind(s('STOPPING'), s('RUNNING'))).toBe(true);
    expect(isBehind(s('RUNNING'), s('STARTING'))).toBe(true);
    expect(isBehind(s('FAILED'), s('RUNNING'))).toBe(true);
    expect(isBehind(s('RUNNING'), s('RUNNING'))).toBe(false);
    expect(isBehind(s('STOPPED'), s('STOPPED'))).toBe(false);
    expect(isBehind(s('RUNNING'), s('STOPPING'))).toBe(false);
    expect(isBehind(s('STOPPING'), s('STOPPED'))).toBe(false);
    expect(isBehind(s('STARTING'), s('FAILED'))).toBe(false);
  });
});

describe('mergeRental', () => {
  const list = [r('2', 'RUNNING', '2026-11-02T00:00:00Z'), r('1', 'STOPPED', '2026-11-01T00:00:00Z')];

  it('replaces a rental by id in place', () => {
    expect(mergeRental(list, r('2', 'STOPPING', '2026-11-02T00:00:00Z')).map((x) => x.state)).toEqual(['STOPPING', 'STOPPED']);
  });

  it('adds a new rental newest first', () => {
    expect(mergeRental(list, r('3', 'STARTING', '2026-11-03T00:00:00Z')).map((x) => x.id)).toEqual(['3', '2', '1']);
  });

  it('keeps an ended rental ended when an older event arrives', () => {
    expect(mergeRental(list, r('1', 'RUNNING', '2026-11-01T00:00:00Z'))[1]?.state).toBe('STOPPED');
  });

  it('keeps a stopping rental stopping when a running event arrives late', () => {
    const stopping = mergeRental(list, r('2', 'STOPPING', '2026-11-02T00:00:00Z'));
    expect(mergeRental(stopping, r('2', 'RUNNING', '2026-11-02T00:00:00Z'))[0]?.state).toBe('STOPPING');
  });
});

describe('followLog', () => {
  it('follows when the reader is at the end, not when they scrolled up', () => {
    expect(followLog({ scrollTop: 800, scrollHeight: 1000, clientHeight: 200 })).toBe(true);
    expect(followLog({ scrollTop: 300, scrollHeight: 1000, clientHeight: 200 })).toBe(false);
  });
});
