import { describe, expect, it } from 'vitest';
import type { ProviderRentalFieldsFragment } from '../gql/graphql';
import { elapsedSeconds, mergeProviderRental } from './rentals';

describe('mergeProviderRental', () => {
  const r = (id: string, state: ProviderRentalFieldsFragment['state'], createdAt: string, endedAt: string | null = null): ProviderRentalFieldsFragment => ({
    id,
    state,
    cause: null,
    machineId: 'm',
    hostname: 'h',
    modelKey: 'H100',
    model: { key: 'H100', name: 'NVIDIA H100' },
    gpuCount: 1,
    gpuUuids: [],
    gpuIndexes: [],
    pricePerHour: '2.000000',
    earned: '0.000000',
    image: 'busybox',
    createdAt,
    startedAt: null,
    endedAt,
  });
  it('replaces a rental by id and keeps running ones first', () => {
    const list = [r('1', 'RUNNING', '2026-11-01T00:00:00Z'), r('2', 'STOPPED', '2026-10-01T00:00:00Z', '2026-10-02T00:00:00Z')];
    const next = mergeProviderRental(list, r('1', 'STOPPED', '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z'));
    expect(next.map((x) => [x.id, x.state])).toEqual([
      ['1', 'STOPPED'],
      ['2', 'STOPPED'],
    ]);
    expect(mergeProviderRental(next, r('1', 'RUNNING', '2026-11-01T00:00:00Z'))[0]?.state).toBe('STOPPED');
    const added = mergeProviderRental(next, r('3', 'STARTING', '2026-11-03T00:00:00Z'));
    expect(added.map((x) => x.id)).toEqual(['3', '1', '2']);
  });
});

describe('elapsedSeconds', () => {
  const now = Date.parse('2026-12-05T12:00:00Z');
  it('counts from the start to now while the rental runs', () => {
    expect(elapsedSeconds({ startedAt: '2026-12-05T10:59:30Z', endedAt: null }, now)).toBe(3630);
  });
  it('stops at the end once the rental ended', () => {
    expect(elapsedSeconds({ startedAt: '2026-12-05T10:00:00Z', endedAt: '2026-12-05T10:00:59.9Z' }, now)).toBe(59);
  });
  it('is zero before the start', () => {
    expect(elapsedSeconds({ startedAt: null, endedAt: null }, now)).toBe(0);
  });
});
