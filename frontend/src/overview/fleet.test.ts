import { describe, expect, it } from 'vitest';
import { emptyFleet, fleetReducer, machinesOf, summarize, type Fleet, type FleetAction, type Machine } from './fleet';

/** machine is a machine as the API sends it, with what a case changes. */
function machine(over: Partial<Machine> & Pick<Machine, 'id'>): Machine {
  return {
    machineId: `m-${over.id}`,
    hostname: `host-${over.id}`,
    status: 'ONLINE',
    offlineReason: null,
    statusChangedAt: '2026-11-01T10:00:00Z',
    lastHeartbeatAt: '2026-11-01T10:00:00Z',
    agentVersion: '1.0.0',
    driverVersion: '550.54',
    cudaVersion: '12.4',
    simulated: true,
    registeredAt: '2026-11-01T09:00:00Z',
    gpus: [],
    ...over,
  };
}

function apply(actions: FleetAction[], from: Fleet = emptyFleet): Fleet {
  return actions.reduce(fleetReducer, from);
}

describe('fleetReducer', () => {
  it('adds a machine from an event and counts only live transitions, not the initial state', () => {
    const fleet = apply([
      { type: 'event', machine: machine({ id: '1' }), initial: true, seq: 1 },
      { type: 'event', machine: machine({ id: '1', status: 'OFFLINE', offlineReason: 'PLANNED' }), initial: false, seq: 2 },
    ]);
    const entry = fleet.entries['1'];
    expect(entry?.machine.status).toBe('OFFLINE');
    expect(entry?.eventSeq).toBe(2);
    expect(entry?.liveEvents).toBe(1);
    expect(fleet.loaded).toBe(false);
  });

  it('takes a polled answer as the fleet once nothing raced it, and marks the fleet loaded', () => {
    const fleet = apply([{ type: 'polled', machines: [machine({ id: '1' }), machine({ id: '2' })], askedAfterSeq: 0 }]);
    expect(fleet.loaded).toBe(true);
    expect(Object.keys(fleet.entries).sort()).toEqual(['1', '2']);
    expect(fleet.entries['2']).toEqual({ machine: machine({ id: '2' }), eventSeq: 0, liveEvents: 0 });
  });

  it('keeps the status of an event that arrived after the poll was sent, taking only the later heartbeat', () => {
    const fleet = apply([
      { type: 'event', machine: machine({ id: '1', lastHeartbeatAt: '2026-11-01T10:00:00Z' }), initial: true, seq: 1 },
      { type: 'event', machine: machine({ id: '1', status: 'OFFLINE', offlineReason: 'UNPLANNED', lastHeartbeatAt: null }), initial: false, seq: 2 },
      // Sent when the latest event was seq 1, read on the server before the transition.
      { type: 'polled', machines: [machine({ id: '1', status: 'ONLINE', lastHeartbeatAt: '2026-11-01T10:00:05Z' })], askedAfterSeq: 1 },
    ]);
    const m = fleet.entries['1']?.machine;
    expect(m?.status).toBe('OFFLINE');
    expect(m?.offlineReason).toBe('UNPLANNED');
    expect(m?.lastHeartbeatAt).toBe('2026-11-01T10:00:05Z');
    expect(fleet.entries['1']?.liveEvents).toBe(1);
  });

  it('lets a poll sent after the latest event replace the machine, fresh telemetry and all', () => {
    const fleet = apply([
      { type: 'event', machine: machine({ id: '1', status: 'OFFLINE', offlineReason: 'PLANNED' }), initial: false, seq: 1 },
      { type: 'polled', machines: [machine({ id: '1', status: 'ONLINE', driverVersion: '560.1' })], askedAfterSeq: 1 },
    ]);
    const entry = fleet.entries['1'];
    expect(entry?.machine.status).toBe('ONLINE');
    expect(entry?.machine.driverVersion).toBe('560.1');
    expect(entry?.eventSeq).toBe(1);
    expect(entry?.liveEvents).toBe(1);
  });

  it('never moves lastHeartbeatAt back: an offline machine has none on the server, the page remembers it', () => {
    const fleet = apply([
      { type: 'polled', machines: [machine({ id: '1', lastHeartbeatAt: '2026-11-01T10:00:09Z' })], askedAfterSeq: 0 },
      { type: 'event', machine: machine({ id: '1', status: 'OFFLINE', offlineReason: 'PLANNED', lastHeartbeatAt: null }), initial: false, seq: 1 },
      { type: 'polled', machines: [machine({ id: '1', status: 'OFFLINE', offlineReason: 'PLANNED', lastHeartbeatAt: '2026-11-01T10:00:01Z' })], askedAfterSeq: 1 },
    ]);
    expect(fleet.entries['1']?.machine.lastHeartbeatAt).toBe('2026-11-01T10:00:09Z');
  });

  it('never removes a machine: a poll that raced a brand-new machine\'s first event does not hide it', () => {
    const fleet = apply([
      { type: 'event', machine: machine({ id: '9' }), initial: false, seq: 1 },
      { type: 'polled', machines: [machine({ id: '1' })], askedAfterSeq: 0 },
    ]);
    expect(Object.keys(fleet.entries).sort()).toEqual(['1', '9']);
  });

  it('returns a new fleet and leaves the old one as it was', () => {
    const before = apply([{ type: 'polled', machines: [machine({ id: '1' })], askedAfterSeq: 0 }]);
    const snapshot = structuredClone(before);
    fleetReducer(before, { type: 'event', machine: machine({ id: '1', status: 'OFFLINE' }), initial: false, seq: 1 });
    expect(before).toEqual(snapshot);
  });
});

describe('machinesOf and summarize', () => {
  it('list machines oldest registration first (then by id, numerically) and count the online ones and GPUs', () => {
    const gpu = (id: string): Machine['gpus'][number] => ({
      id,
      uuid: `GPU-${id}`,
      index: 0,
      name: 'NVIDIA H100 80GB HBM3',
      model: null,
      vramBytes: null,
      pciBusId: null,
      powerLimitW: null,
      simulated: true,
      telemetry: null,
    });
    const fleet = apply([
      {
        type: 'polled',
        machines: [
          machine({ id: '10', registeredAt: '2026-11-01T09:00:00Z', gpus: [gpu('a'), gpu('b')] }),
          machine({ id: '2', registeredAt: '2026-11-01T09:00:00Z', status: 'OFFLINE' }),
          machine({ id: '1', registeredAt: '2026-11-02T09:00:00Z', gpus: [gpu('c')] }),
        ],
        askedAfterSeq: 0,
      },
    ]);
    const entries = machinesOf(fleet);
    expect(entries.map((e) => e.machine.id)).toEqual(['2', '10', '1']);
    expect(summarize(entries)).toEqual({ machines: 3, online: 2, gpus: 3 });
  });
});
