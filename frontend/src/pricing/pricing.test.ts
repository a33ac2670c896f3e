import { describe, expect, it } from 'vitest';
import type { MaintenanceWindowFieldsFragment } from '../gql/graphql';
import { isoToZoned, keptMaintenance, modelRows, priceSeries, zonedToIso } from './pricing';

const h100 = { key: 'H100_SXM_80GB', name: 'H100 SXM5 80GB' };
const l4 = { key: 'L4_24GB', name: 'L4 24GB' };

describe('modelRows', () => {
  it('lists each model the provider has GPUs of, and models already priced', () => {
    const rows = modelRows(
      [
        { id: 'm1', hostname: 'a', gpus: [{ id: 'g1', model: h100 }, { id: 'g2', model: h100 }, { id: 'g3', model: null }] },
        { id: 'm2', hostname: 'b', gpus: [{ id: 'g4', model: h100 }] },
      ],
      [{ modelKey: l4.key, model: l4, pricePerHour: '0.400000', updatedAt: '2026-11-01T00:00:00Z', history: [] }],
    );
    expect(rows.map((r) => [r.key, r.gpus, r.price?.pricePerHour ?? null])).toEqual([
      ['H100_SXM_80GB', 3, null],
      ['L4_24GB', 0, '0.400000'],
    ]);
  });
});

describe('priceSeries', () => {
  it('plots the newest-first history oldest first, carrying the current rate to now', () => {
    const s = priceSeries(
      [
        { pricePerHour: '2.500000', at: '2026-11-03T00:00:00Z' },
        { pricePerHour: '2.000000', at: '2026-11-01T00:00:00Z' },
      ],
      Date.parse('2026-11-04T00:00:00Z') / 1000,
    );
    expect(s.values).toEqual([2, 2.5, 2.5]);
    expect(s.xs).toEqual([Date.parse('2026-11-01T00:00:00Z') / 1000, Date.parse('2026-11-03T00:00:00Z') / 1000, Date.parse('2026-11-04T00:00:00Z') / 1000]);
  });

  it('is empty without a history', () => {
    expect(priceSeries([], 100)).toEqual({ xs: [], values: [] });
  });
});

describe('maintenance times in a zone', () => {
  const cases = [
    { description: 'Lisbon in winter is UTC', local: '2026-12-05T22:00', zone: 'Europe/Lisbon', iso: '2026-12-05T22:00:00.000Z' },
    { description: 'Lisbon in summer is UTC+1', local: '2026-07-05T22:00', zone: 'Europe/Lisbon', iso: '2026-07-05T21:00:00.000Z' },
    { description: 'Kolkata is UTC+5:30', local: '2026-12-05T08:00', zone: 'Asia/Kolkata', iso: '2026-12-05T02:30:00.000Z' },
    { description: 'New York crosses the date line of UTC', local: '2026-12-05T22:00', zone: 'America/New_York', iso: '2026-12-06T03:00:00.000Z' },
  ];
  for (const c of cases) {
    it(c.description, () => {
      expect(zonedToIso(c.local, c.zone)).toBe(c.iso);
      expect(isoToZoned(c.iso, c.zone)).toBe(c.local);
    });
  }

  it('refuses text that is not a datetime-local value', () => {
    expect(zonedToIso('2026-12-05', 'UTC')).toBeNull();
  });
});

describe('keptMaintenance', () => {
  const w = (id: string, startsAt: string): MaintenanceWindowFieldsFragment => ({ id, machineId: null, startsAt, endsAt: '2027-01-01T00:00:00Z', note: null });
  it('sends again the windows not started yet, less the one removed', () => {
    const now = Date.parse('2026-12-01T00:00:00Z');
    const kept = keptMaintenance([w('1', '2026-11-30T00:00:00Z'), w('2', '2026-12-02T00:00:00Z'), w('3', '2026-12-03T00:00:00Z')], now, '3');
    expect(kept).toEqual([{ machineId: null, startsAt: '2026-12-02T00:00:00Z', endsAt: '2027-01-01T00:00:00Z', note: null }]);
  });
});
