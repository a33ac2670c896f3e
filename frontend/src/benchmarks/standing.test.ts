import { describe, expect, it } from 'vitest';
import {
  emptyStandings,
  problemsOf,
  runParts,
  secondsUntil,
  standingsOf,
  standingsReducer,
  summarizeListings,
  type GpuStanding,
  type MachineStanding,
  type StandingAction,
  type Standings,
} from './standing';

function gpu(id: string, listing: GpuStanding['listing']): GpuStanding {
  return { gpuId: id, gpuUuid: `GPU-${id}`, listing, score: null, listingChangedAt: '2026-11-01T10:00:00Z', shortfalls: [], guidance: [], latest: null, history: [] };
}

function machine(id: string, over: Partial<MachineStanding> = {}): MachineStanding {
  return {
    machineId: id,
    hostname: `host-${id}`,
    requestAllowedAt: '2026-11-01T10:00:00Z',
    nextScheduledAt: null,
    pendingRun: null,
    latestRun: null,
    gpus: [],
    ...over,
  };
}

const run: NonNullable<MachineStanding['pendingRun']> = { id: '7', runId: 'r-7', reason: 'REQUESTED', state: 'PENDING', requestedAt: '2026-11-01T10:00:00Z', startedAt: null, finishedAt: null, simulated: true, steps: [] };

function apply(actions: StandingAction[], from: Standings = emptyStandings): Standings {
  return actions.reduce(standingsReducer, from);
}

describe('standingsReducer', () => {
  it('replaces a machine\'s standing on each event, counting only live changes', () => {
    const s = apply([
      { type: 'event', machine: machine('1', { gpus: [gpu('a', 'DELISTED')] }), initial: true, seq: 1 },
      { type: 'event', machine: machine('1', { gpus: [gpu('a', 'LISTED')] }), initial: false, seq: 2 },
    ]);
    expect(s.entries['1']?.machine.gpus[0]?.listing).toBe('LISTED');
    expect(s.entries['1']?.liveEvents).toBe(1);
    expect(s.loaded).toBe(false);
  });

  it('takes a query answer unless an event for the machine arrived after it was sent', () => {
    const s = apply([
      { type: 'event', machine: machine('1', { gpus: [gpu('a', 'LISTED')] }), initial: false, seq: 1 },
      { type: 'loaded', machines: [machine('1', { gpus: [gpu('a', 'DELISTED')] }), machine('2')], askedAfterSeq: 0 },
    ]);
    expect(s.loaded).toBe(true);
    expect(s.entries['1']?.machine.gpus[0]?.listing).toBe('LISTED');
    expect(s.entries['2']).toBeDefined();
    const later = apply([{ type: 'loaded', machines: [machine('1', { gpus: [gpu('a', 'DELISTED')] })], askedAfterSeq: 1 }], s);
    expect(later.entries['1']?.machine.gpus[0]?.listing).toBe('DELISTED');
  });

  it('shows a request\'s pending run and cooldown at once, never moving the cooldown back', () => {
    const s = apply([
      { type: 'loaded', machines: [machine('1', { requestAllowedAt: '2026-11-01T10:30:00Z' })], askedAfterSeq: 0 },
      { type: 'requested', machineId: '1', pendingRun: run, requestAllowedAt: '2026-11-01T10:10:00Z', askedAfterSeq: 0 },
    ]);
    expect(s.entries['1']?.machine.pendingRun).toEqual(run);
    expect(s.entries['1']?.machine.requestAllowedAt).toBe('2026-11-01T10:30:00Z');
    const refused = apply([{ type: 'requested', machineId: '1', pendingRun: null, requestAllowedAt: '2026-11-01T11:00:00Z', askedAfterSeq: 0 }], s);
    expect(refused.entries['1']?.machine.pendingRun).toEqual(run);
    expect(refused.entries['1']?.machine.requestAllowedAt).toBe('2026-11-01T11:00:00Z');
    expect(apply([{ type: 'requested', machineId: 'unknown', pendingRun: run, requestAllowedAt: null, askedAfterSeq: 0 }], s)).toBe(s);
  });

  it('keeps a run finished before the answer was read finished, taking only the later cooldown', () => {
    // Asked at seq 0; the run's events (queued, then finished) came first.
    const s = apply([
      { type: 'loaded', machines: [machine('1', { requestAllowedAt: '2026-11-01T10:00:00Z' })], askedAfterSeq: 0 },
      { type: 'event', machine: machine('1', { pendingRun: run }), initial: false, seq: 1 },
      { type: 'event', machine: machine('1', { pendingRun: null }), initial: false, seq: 2 },
      { type: 'requested', machineId: '1', pendingRun: run, requestAllowedAt: '2026-11-01T10:40:00Z', askedAfterSeq: 0 },
    ]);
    expect(s.entries['1']?.machine.pendingRun).toBeNull();
    expect(s.entries['1']?.machine.requestAllowedAt).toBe('2026-11-01T10:40:00Z');
  });
});

describe('standingsOf and summarizeListings', () => {
  it('lists machines by id as numbers and counts GPUs by listing', () => {
    const s = apply([
      {
        type: 'loaded',
        machines: [machine('10', { gpus: [gpu('c', 'PENDING')] }), machine('9', { gpus: [gpu('a', 'LISTED'), gpu('b', 'DELISTED')] })],
        askedAfterSeq: 0,
      },
    ]);
    const entries = standingsOf(s);
    expect(entries.map((e) => e.machine.machineId)).toEqual(['9', '10']);
    expect(summarizeListings(entries)).toEqual({ gpus: 3, listed: 1, delisted: 1, pending: 1 });
  });
});

describe('secondsUntil', () => {
  const now = Date.parse('2026-11-01T10:00:00Z');
  it.each([
    ['a time ahead, rounded up', '2026-11-01T10:00:09.200Z', 10],
    ['a time passed is zero', '2026-11-01T09:59:00Z', 0],
  ])('%s', (_name, iso, want) => {
    expect(secondsUntil(iso, now)).toBe(want);
  });
});

describe('problemsOf', () => {
  it('lists every delisted GPU with its machine, in the page\'s machine order, and nothing when all are well', () => {
    const s = apply([
      { type: 'event', machine: machine('10', { gpus: [gpu('c', 'DELISTED'), gpu('d', 'LISTED')] }), initial: true, seq: 1 },
      { type: 'event', machine: machine('2', { gpus: [gpu('a', 'PENDING'), gpu('b', 'DELISTED')] }), initial: true, seq: 2 },
    ]);
    expect(problemsOf(standingsOf(s)).map((p) => [p.machineId, p.hostname, p.gpu.gpuId])).toEqual([
      ['2', 'host-2', 'b'],
      ['10', 'host-10', 'c'],
    ]);
    const healed = apply([{ type: 'event', machine: machine('2', { gpus: [gpu('a', 'LISTED'), gpu('b', 'LISTED')] }), initial: false, seq: 3 }], s);
    expect(problemsOf(standingsOf(healed)).map((p) => p.gpu.gpuId)).toEqual(['c']);
    expect(problemsOf([])).toEqual([]);
  });
});

describe('runParts', () => {
  const gpus = [
    { gpuId: 'g1', gpuUuid: 'GPU-1' },
    { gpuId: 'g0', gpuUuid: 'GPU-0' },
  ];
  const indexOf = (id: string) => ({ g0: 0, g1: 1 })[id];

  it('lists the GPUs by index, then the network and the storage, each measuring until reported', () => {
    expect(runParts(gpus, [], indexOf)).toEqual([
      { part: 'GPU', gpuUuid: 'GPU-0', gpuId: 'g0', outcome: null },
      { part: 'GPU', gpuUuid: 'GPU-1', gpuId: 'g1', outcome: null },
      { part: 'NETWORK', gpuUuid: null, gpuId: null, outcome: null },
      { part: 'STORAGE', gpuUuid: null, gpuId: null, outcome: null },
    ]);
  });

  it('gives each reported part its outcome, keeping the order steady as reports arrive', () => {
    const parts = runParts(
      gpus,
      [
        { part: 'STORAGE', gpuUuid: null, outcome: 'FAILED' },
        { part: 'GPU', gpuUuid: 'GPU-1', outcome: 'COMPLETED' },
      ],
      indexOf,
    );
    expect(parts.map((p) => [p.part, p.gpuUuid, p.outcome])).toEqual([
      ['GPU', 'GPU-0', null],
      ['GPU', 'GPU-1', 'COMPLETED'],
      ['NETWORK', null, null],
      ['STORAGE', null, 'FAILED'],
    ]);
  });

  it('keeps a reported GPU the machine no longer lists, at the end', () => {
    const parts = runParts(gpus, [{ part: 'GPU', gpuUuid: 'GPU-9', outcome: 'POSTPONED' }], indexOf);
    expect(parts.at(-1)).toEqual({ part: 'GPU', gpuUuid: 'GPU-9', gpuId: null, outcome: 'POSTPONED' });
    expect(parts).toHaveLength(5);
  });
});
