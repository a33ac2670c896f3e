import { describe, expect, it } from 'vitest';
import type { Gpu } from './fleet';
import { utilizationHistory } from './utilizationHistory';

function gpu(index: number, recent: number[] | null): Gpu {
  return {
    id: String(index),
    uuid: `GPU-${index}`,
    index,
    name: 'NVIDIA H100 80GB HBM3',
    model: null,
    vramBytes: null,
    pciBusId: null,
    powerLimitW: null,
    simulated: true,
    listing: 'LISTED',
    rented: false,
    telemetry:
      recent === null
        ? null
        : {
            at: '2026-11-01T10:00:00Z',
            utilizationPct: recent[recent.length - 1] ?? null,
            memoryUsedBytes: null,
            temperatureC: null,
            powerDrawW: null,
            smClockMHz: null,
            throttleReasons: [],
            eccCorrected: null,
            eccUncorrected: null,
            recentUtilizationPct: recent,
          },
  };
}

describe('utilizationHistory', () => {
  it('lines the GPUs up on their latest sample, at its time, a heartbeat interval apart', () => {
    const h = utilizationHistory([gpu(0, [10, 20, 30, 40]), gpu(1, [70, 80])], 10);
    const latest = Date.parse('2026-11-01T10:00:00Z') / 1000;
    expect(h.xs).toEqual([latest - 30, latest - 20, latest - 10, latest]);
    expect(h.gpus.map((g) => [g.gpu.index, g.values])).toEqual([
      [0, [10, 20, 30, 40]],
      [1, [null, null, 70, 80]],
    ]);
  });

  it('leaves out GPUs without telemetry or with a single sample, which draw no line', () => {
    const h = utilizationHistory([gpu(0, null), gpu(1, [50]), gpu(2, [1, 2])], 5);
    expect(h.gpus.map((g) => g.gpu.index)).toEqual([2]);
    expect(h.xs).toEqual([Date.parse('2026-11-01T10:00:00Z') / 1000 - 5, Date.parse('2026-11-01T10:00:00Z') / 1000]);
  });

  it('is empty when no GPU has a history yet', () => {
    expect(utilizationHistory([gpu(0, [])], 10)).toEqual({ xs: [], gpus: [] });
  });
});
