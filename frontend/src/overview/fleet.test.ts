import { describe, expect, it } from 'vitest';
import { emptyFleet, fleetReducer, machinesOf, summarize, type Fleet, type FleetAction, type Machine } from './fleet';

/** machine is a machine as the API sends it, with what a case changes. */
function machine(over: Partial<Machine> & Pick<Machine, 'id'>): Machine {
  return {
    machineId: `m-${over.id}`,
    heartbeatIntervalSeconds: 10,
    hostname: `host-${over.id}`,
    status: 'ONLINE',
    offlineReason: null,
    statusChangedAt: '2026-11-01T10:00:00Z',
    lastHeartbeatAt: '2026-11-01T10:00:00Z',
    agentVersion: '1.0.0',
    driverVersion: '550.54',
    cudaVersion: '12.4',
    simulated: true,
    cpuModel: null,
    cpuCores: null,
    ramBytes: null,
    diskBytes: null,
    diskFreeBytes: null,
    registeredAt: '2026-11-01T09:00:00Z',
    gpus: [],
    ...over,
  };
}

/** gpu is one GPU of a machine, with the utilisation of its latest sample. */
function gpu(id: string, utilizationPct: number | null = null): Machine['gpus'][number] {
  return {
    id,
    uuid: `GPU-${id}`,
    index: 0,
    name: 'NVIDIA H100 80GB HBM3',
    model: null,
    vramBytes: null,
    pciBusId: null,
    powerLimitW: null,
    simulated: true,
    listing: 'LISTED',
    rented: false,
    telemetry:
      utilizationPct === null
        ? null
        : {
            at: '2026-11-01T10:00:05Z',
            utilizationPct,
            memoryUsedBytes: null,
            temperatureC: null,
            powerDrawW: null,
            smClockMHz: null,
            throttleReasons: [],
            eccCorrected: null,
            eccUncorrected: null,
            recentUtilizationPct: [utilizationPct],
          },
  };
}

function apply(actions: FleetAction[], from: Fleet = emptyFleet): Fleet {
  return actions.reduce(fleetReducer, from);
}

describe('fleetReducer', () => {
  it('takes the answer of the query as the fleet and marks it loaded', () => {
    const fleet = apply([{ type: 'loaded', machines: [machine({ id: '1' }), machine({ id: '2' })] }]);
    expect(fleet.loaded).toBe(true);
    expect(Object.keys(fleet.entries).sort()).toEqual(['1', '2']);
    expect(fleet.entries['2']).toEqual({ machine: machine({ id: '2' }), liveEvents: 0 });
  });

  it('replaces the machine by id with what each event carries, counting only transitions as live events', () => {
    const fleet = apply([
      { type: 'loaded', machines: [machine({ id: '1', status: 'OFFLINE', offlineReason: 'NEVER_SEEN', gpus: [gpu('a')] })] },
      { type: 'event', kind: 'INITIAL', machine: machine({ id: '1', status: 'OFFLINE', offlineReason: 'NEVER_SEEN', gpus: [gpu('a')] }) },
      { type: 'event', kind: 'STATUS', machine: machine({ id: '1', gpus: [gpu('a', 10)] }) },
      { type: 'event', kind: 'TELEMETRY', machine: machine({ id: '1', lastHeartbeatAt: '2026-11-01T10:00:05Z', gpus: [gpu('a', 80)] }) },
    ]);
    const entry = fleet.entries['1'];
    expect(entry?.machine).toEqual(machine({ id: '1', lastHeartbeatAt: '2026-11-01T10:00:05Z', gpus: [gpu('a', 80)] }));
    expect(entry?.liveEvents).toBe(1);
  });

  it('shows what arrives: a transition offline carries the last heartbeat the server kept, and no telemetry', () => {
    const fleet = apply([
      { type: 'loaded', machines: [machine({ id: '1', gpus: [gpu('a', 50)] })] },
      { type: 'event', kind: 'STATUS', machine: machine({ id: '1', status: 'OFFLINE', offlineReason: 'PLANNED', lastHeartbeatAt: '2026-11-01T10:00:09Z', gpus: [gpu('a')] }) },
    ]);
    const m = fleet.entries['1']?.machine;
    expect(m?.status).toBe('OFFLINE');
    expect(m?.offlineReason).toBe('PLANNED');
    expect(m?.lastHeartbeatAt).toBe('2026-11-01T10:00:09Z');
    expect(m?.gpus[0]?.telemetry).toBeNull();
  });

  it('adds a machine the page did not know from its first event, before or after the answer', () => {
    const fleet = apply([
      { type: 'event', kind: 'STATUS', machine: machine({ id: '9' }) },
      { type: 'loaded', machines: [machine({ id: '1' })] },
      { type: 'event', kind: 'TELEMETRY', machine: machine({ id: '5' }) },
    ]);
    expect(Object.keys(fleet.entries).sort()).toEqual(['1', '5', '9']);
    expect(fleet.entries['9']?.liveEvents).toBe(1);
  });

  it('keeps an event over an answer that arrives after it: the subscription is the newer', () => {
    const fleet = apply([
      { type: 'event', kind: 'STATUS', machine: machine({ id: '1', status: 'OFFLINE', offlineReason: 'UNPLANNED' }) },
      { type: 'loaded', machines: [machine({ id: '1', status: 'ONLINE' })] },
    ]);
    expect(fleet.entries['1']?.machine.status).toBe('OFFLINE');
    expect(fleet.loaded).toBe(true);
  });

  it('takes the current state a resumed subscription sends again without counting it as live events', () => {
    const fleet = apply([
      { type: 'loaded', machines: [machine({ id: '1' })] },
      { type: 'event', kind: 'STATUS', machine: machine({ id: '1', status: 'OFFLINE', offlineReason: 'UNPLANNED' }) },
      // graphql-ws reconnected: the server sends every machine's state again.
      { type: 'event', kind: 'INITIAL', machine: machine({ id: '1' }) },
    ]);
    expect(fleet.entries['1']?.machine.status).toBe('ONLINE');
    expect(fleet.entries['1']?.liveEvents).toBe(1);
  });

  it('returns a new fleet and leaves the old one as it was', () => {
    const before = apply([{ type: 'loaded', machines: [machine({ id: '1' })] }]);
    const snapshot = structuredClone(before);
    fleetReducer(before, { type: 'event', kind: 'STATUS', machine: machine({ id: '1', status: 'OFFLINE' }) });
    expect(before).toEqual(snapshot);
  });
});

describe('machinesOf and summarize', () => {
  it('list machines oldest registration first (then by id, numerically) and count the online ones and GPUs', () => {
    const fleet = apply([
      {
        type: 'loaded',
        machines: [
          machine({ id: '10', registeredAt: '2026-11-01T09:00:00Z', gpus: [gpu('a'), gpu('b')] }),
          machine({ id: '2', registeredAt: '2026-11-01T09:00:00Z', status: 'OFFLINE' }),
          machine({ id: '1', registeredAt: '2026-11-02T09:00:00Z', gpus: [gpu('c')] }),
        ],
      },
    ]);
    const entries = machinesOf(fleet);
    expect(entries.map((e) => e.machine.id)).toEqual(['2', '10', '1']);
    expect(summarize(entries)).toEqual({ machines: 3, online: 2, gpus: 3 });
  });
});
