import type { MachineFieldsFragment } from '../gql/graphql';

/** Machine is one of the provider's machines as the Overview shows it. */
export type Machine = MachineFieldsFragment;

/** Gpu is one GPU of a machine. */
export type Gpu = Machine['gpus'][number];

/** Telemetry is a GPU's latest sample, null while its machine is offline. */
export type Telemetry = NonNullable<Gpu['telemetry']>;

/** FleetEntry is a machine with what the page learned about it live. */
export interface FleetEntry {
  machine: Machine;
  /**
   * eventSeq is the sequence number of the last subscription event applied
   * to this machine (0: none yet). A polled answer asked before that event
   * arrived may be older than it, so it does not override its status.
   */
  eventSeq: number;
  /** liveEvents counts the transitions that arrived over the subscription. */
  liveEvents: number;
}

/**
 * Fleet is what the Overview knows: the machines by id, and whether the
 * first answer has arrived.
 */
export interface Fleet {
  entries: Readonly<Record<string, FleetEntry>>;
  loaded: boolean;
}

/**
 * FleetAction is a change to the fleet.
 *
 * `event` is one machineStatusChanged message; seq numbers events in the
 * order they arrived. `polled` is the answer of a ProviderFleet query that
 * was sent when the latest event had sequence number askedAfterSeq.
 */
export type FleetAction =
  | { type: 'event'; machine: Machine; initial: boolean; seq: number }
  | { type: 'polled'; machines: readonly Machine[]; askedAfterSeq: number };

/** emptyFleet is the fleet before anything has arrived. */
export const emptyFleet: Fleet = { entries: {}, loaded: false };

/**
 * fleetReducer applies one change.
 *
 * Status comes from two places: the subscription pushes every transition
 * (and the current state when it opens), and the query is polled for fresh
 * telemetry. They can cross: a poll read on the server just before a
 * transition may arrive just after its event. So an event always applies,
 * and a polled machine replaces what the page has only if no event for that
 * machine arrived after the poll was sent; otherwise the event's status
 * stands and the poll only moves lastHeartbeatAt forward.
 *
 * Machines are never removed: the API has no way to delete one, and a poll
 * that raced a brand-new machine's first event must not hide it.
 */
export function fleetReducer(fleet: Fleet, action: FleetAction): Fleet {
  switch (action.type) {
    case 'event': {
      const prev = fleet.entries[action.machine.id];
      const entry: FleetEntry = {
        machine: withLatestHeartbeat(action.machine, prev?.machine),
        eventSeq: action.seq,
        liveEvents: (prev?.liveEvents ?? 0) + (action.initial ? 0 : 1),
      };
      return { ...fleet, entries: { ...fleet.entries, [action.machine.id]: entry } };
    }
    case 'polled': {
      const entries = { ...fleet.entries };
      for (const machine of action.machines) {
        const prev = entries[machine.id];
        if (!prev) {
          entries[machine.id] = { machine, eventSeq: 0, liveEvents: 0 };
        } else if (prev.eventSeq > action.askedAfterSeq) {
          entries[machine.id] = { ...prev, machine: withLatestHeartbeat(prev.machine, machine) };
        } else {
          entries[machine.id] = { ...prev, machine: withLatestHeartbeat(machine, prev.machine) };
        }
      }
      return { entries, loaded: true };
    }
  }
}

/**
 * withLatestHeartbeat is machine with the later lastHeartbeatAt of the two:
 * a poll may answer with an older heartbeat than one the page already has
 * (it was read on another replica, or before an event), and the time shown
 * never goes back.
 */
function withLatestHeartbeat(machine: Machine, other: Machine | undefined): Machine {
  const theirs = other?.lastHeartbeatAt;
  if (!theirs) return machine;
  const ours = machine.lastHeartbeatAt;
  if (ours && Date.parse(ours) >= Date.parse(theirs)) return machine;
  return { ...machine, lastHeartbeatAt: theirs };
}

/**
 * machinesOf lists the fleet's machines oldest registration first, the
 * order the server lists them, so cards do not jump when one changes.
 */
export function machinesOf(fleet: Fleet): FleetEntry[] {
  return Object.values(fleet.entries).sort(
    (a, b) =>
      Date.parse(a.machine.registeredAt) - Date.parse(b.machine.registeredAt) ||
      a.machine.id.localeCompare(b.machine.id, 'en', { numeric: true }),
  );
}

/** FleetSummary counts what the page header shows. */
export interface FleetSummary {
  machines: number;
  online: number;
  gpus: number;
}

/** summarize counts machines, the online ones, and their GPUs. */
export function summarize(entries: readonly FleetEntry[]): FleetSummary {
  let online = 0;
  let gpus = 0;
  for (const { machine } of entries) {
    if (machine.status === 'ONLINE') online++;
    gpus += machine.gpus.length;
  }
  return { machines: entries.length, online, gpus };
}
