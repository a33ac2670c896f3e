import type { MachineEventKind, MachineFieldsFragment } from '../gql/graphql';

/** Machine is one of the provider's machines as the Overview shows it. */
export type Machine = MachineFieldsFragment;

/** Gpu is one GPU of a machine. */
export type Gpu = Machine['gpus'][number];

/** Telemetry is a GPU's latest sample, null while its machine is offline. */
export type Telemetry = NonNullable<Gpu['telemetry']>;

/** FleetEntry is a machine with what the page learned about it live. */
export interface FleetEntry {
  machine: Machine;
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
 * FleetAction is a change to the fleet: `loaded` is the answer of the one
 * ProviderFleet query, `event` one machineStatusChanged message.
 */
export type FleetAction =
  | { type: 'loaded'; machines: readonly Machine[] }
  | { type: 'event'; kind: MachineEventKind; machine: Machine };

/** emptyFleet is the fleet before anything has arrived. */
export const emptyFleet: Fleet = { entries: {}, loaded: false };

/**
 * fleetReducer applies one change. Every event carries the whole machine
 * (its current state, a transition, or a telemetry sample), so it replaces
 * the machine by id. The subscription opens once the query has answered,
 * so its events are the newer: the answer only adds machines the page does
 * not know yet. Machines are never removed (the API cannot delete one).
 */
export function fleetReducer(fleet: Fleet, action: FleetAction): Fleet {
  if (action.type === 'loaded') {
    const entries = { ...fleet.entries };
    for (const machine of action.machines) entries[machine.id] ??= { machine, liveEvents: 0 };
    return { entries, loaded: true };
  }
  const liveEvents = (fleet.entries[action.machine.id]?.liveEvents ?? 0) + (action.kind === 'STATUS' ? 1 : 0);
  return { ...fleet, entries: { ...fleet.entries, [action.machine.id]: { machine: action.machine, liveEvents } } };
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
