import type { BenchmarkOutcome, BenchmarkPart, MachineBenchmarksFieldsFragment } from '../gql/graphql';

/** MachineStanding is one machine's benchmark standing as the API sends it. */
export type MachineStanding = MachineBenchmarksFieldsFragment;

/** GpuStanding is one GPU's standing. */
export type GpuStanding = MachineStanding['gpus'][number];

/** StandingEntry is a machine's standing with what the page learned live. */
export interface StandingEntry {
  machine: MachineStanding;
  /** eventSeq is the number of the last subscription event applied (0: none). */
  eventSeq: number;
  /** liveEvents counts the changes that arrived over the subscription (not its initial state). */
  liveEvents: number;
}

/** Standings is what the Benchmarks tab knows, by machine id. */
export interface Standings {
  entries: Readonly<Record<string, StandingEntry>>;
  loaded: boolean;
}

/**
 * StandingAction is a change: `event` is one benchmarkUpdated message (seq
 * numbers them in arrival order); `loaded` is a ProviderBenchmarks answer
 * sent when the latest event was askedAfterSeq; `requested` is a
 * requestBenchmark answer for one machine.
 */
export type StandingAction =
  | { type: 'event'; machine: MachineStanding; initial: boolean; seq: number }
  | { type: 'loaded'; machines: readonly MachineStanding[]; askedAfterSeq: number }
  | { type: 'requested'; machineId: string; pendingRun: MachineStanding['pendingRun']; requestAllowedAt: string | null; askedAfterSeq: number };

/** emptyStandings is the state before anything arrived. */
export const emptyStandings: Standings = { entries: {}, loaded: false };

/**
 * standingsReducer applies one change. An event replaces the machine's
 * standing as a whole, as the Overview does with machineStatusChanged. A
 * queried machine replaces it only if no event for it arrived after the
 * query was sent (the event is newer). A request's answer sets the pending
 * run and the cooldown at once; the event that follows it confirms them.
 * An event for the machine that arrived after the request was sent
 * (askedAfterSeq) is newer than the answer: on a busy machine the run may
 * have finished before the answer was read, and its queued run would then
 * show as running for good, so only the later cooldown is taken.
 */
export function standingsReducer(state: Standings, action: StandingAction): Standings {
  switch (action.type) {
    case 'event': {
      const prev = state.entries[action.machine.machineId];
      const entry: StandingEntry = {
        machine: action.machine,
        eventSeq: action.seq,
        liveEvents: (prev?.liveEvents ?? 0) + (action.initial ? 0 : 1),
      };
      return { ...state, entries: { ...state.entries, [action.machine.machineId]: entry } };
    }
    case 'loaded': {
      const entries = { ...state.entries };
      for (const machine of action.machines) {
        const prev = entries[machine.machineId];
        if (!prev) entries[machine.machineId] = { machine, eventSeq: 0, liveEvents: 0 };
        else if (prev.eventSeq <= action.askedAfterSeq) entries[machine.machineId] = { ...prev, machine };
      }
      return { entries, loaded: true };
    }
    case 'requested': {
      const prev = state.entries[action.machineId];
      if (!prev) return state;
      const behind = prev.eventSeq > action.askedAfterSeq;
      const machine = {
        ...prev.machine,
        pendingRun: behind ? prev.machine.pendingRun : (action.pendingRun ?? prev.machine.pendingRun),
        requestAllowedAt: later(prev.machine.requestAllowedAt, action.requestAllowedAt),
      };
      return { ...state, entries: { ...state.entries, [action.machineId]: { ...prev, machine } } };
    }
  }
}

/** later is the later of two times (a null one loses). */
function later(a: string, b: string | null): string {
  return b !== null && Date.parse(b) > Date.parse(a) ? b : a;
}

/** standingsOf lists the machines in the order the server does: oldest (lowest id) first. */
export function standingsOf(state: Standings): StandingEntry[] {
  return Object.values(state.entries).sort((a, b) => a.machine.machineId.localeCompare(b.machine.machineId, 'en', { numeric: true }));
}

/** ListingSummary counts the page header's GPUs by listing. */
export interface ListingSummary {
  gpus: number;
  listed: number;
  delisted: number;
  pending: number;
}

/** summarizeListings counts every machine's GPUs by listing. */
export function summarizeListings(entries: readonly StandingEntry[]): ListingSummary {
  const out: ListingSummary = { gpus: 0, listed: 0, delisted: 0, pending: 0 };
  for (const { machine } of entries) {
    for (const gpu of machine.gpus) {
      out.gpus++;
      if (gpu.listing === 'LISTED') out.listed++;
      else if (gpu.listing === 'DELISTED') out.delisted++;
      else out.pending++;
    }
  }
  return out;
}

/** Problem is a delisted GPU with the machine it is in. */
export interface Problem {
  machineId: string;
  hostname: string;
  gpu: GpuStanding;
}

/** problemsOf lists every delisted GPU, machine by machine in the page's order. */
export function problemsOf(entries: readonly StandingEntry[]): Problem[] {
  return entries.flatMap(({ machine }) =>
    machine.gpus.filter((gpu) => gpu.listing === 'DELISTED').map((gpu) => ({ machineId: machine.machineId, hostname: machine.hostname, gpu })),
  );
}

/** secondsUntil is the whole seconds from now until iso, never negative (rounded up: 0.2 s left is 1). */
export function secondsUntil(iso: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(iso) - now) / 1000));
}

/** RunPart is one part of a pending run: reported finished (outcome) or still measuring (null). */
export interface RunPart {
  part: BenchmarkPart;
  gpuUuid: string | null;
  /** gpuId is the GPU's id on the platform (its name), for a GPU part of the machine. */
  gpuId: string | null;
  outcome: BenchmarkOutcome | null;
}

/**
 * runParts lists a pending run's parts in a steady order, the machine's
 * GPUs by index and then the network and the storage, each with the
 * outcome the agent reported, or null while it measures; a reported part
 * the list does not know (a GPU removed meanwhile) is added at the end.
 */
export function runParts(
  gpus: readonly { gpuId: string; gpuUuid: string }[],
  steps: readonly { part: BenchmarkPart; gpuUuid?: string | null; outcome: BenchmarkOutcome }[],
  indexOf: (gpuId: string) => number | undefined,
): RunPart[] {
  const index = (gpuId: string) => indexOf(gpuId) ?? Number.MAX_SAFE_INTEGER;
  const key = (part: BenchmarkPart, uuid: string | null | undefined) => `${part}/${uuid ?? ''}`;
  const reported = new Map(steps.map((s) => [key(s.part, s.gpuUuid), s.outcome]));
  const parts: RunPart[] = [
    ...[...gpus].sort((a, b) => index(a.gpuId) - index(b.gpuId)).map((g) => ({ part: 'GPU' as const, gpuUuid: g.gpuUuid, gpuId: g.gpuId })),
    { part: 'NETWORK' as const, gpuUuid: null, gpuId: null },
    { part: 'STORAGE' as const, gpuUuid: null, gpuId: null },
  ].map((p) => ({ ...p, outcome: reported.get(key(p.part, p.gpuUuid)) ?? null }));
  const known = new Set(parts.map((p) => key(p.part, p.gpuUuid)));
  for (const s of steps) {
    if (!known.has(key(s.part, s.gpuUuid))) parts.push({ part: s.part, gpuUuid: s.gpuUuid ?? null, gpuId: null, outcome: s.outcome });
  }
  return parts;
}
