import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { useClient, type CombinedError } from 'urql';
import type { ProviderBenchmarksQuery as ProviderBenchmarksResult } from '../gql/graphql';
import { BenchmarkUpdatedSubscription, ProviderBenchmarksQuery } from './operations';
import { emptyStandings, standingsReducer, type StandingAction, type Standings } from './standing';

/** GpuName is how the page names a GPU: its index on the machine and its model. */
export interface GpuName {
  index: number;
  name: string;
}

/** BenchmarksView is what useBenchmarks gives the page. */
export interface BenchmarksView extends Standings {
  /** providerId is the signed-in provider's, null until the first answer (or if there is none). */
  providerId: string | null;
  /** gpuNames names each GPU by its id (the standing carries ids only). */
  gpuNames: ReadonlyMap<string, GpuName>;
  /** live turns true with the first subscription message. */
  live: boolean;
  error: CombinedError | undefined;
  /** refresh queries again (the retry of a failed first load). */
  refresh: () => void;
  /** dispatch applies a change the page made (a requestBenchmark answer). */
  dispatch: (action: StandingAction) => void;
}

type Machines = NonNullable<ProviderBenchmarksResult['myProvider']>['machines'];

function namesOf(machines: Machines): Map<string, GpuName> {
  const names = new Map<string, GpuName>();
  for (const m of machines) for (const g of m.gpus) names.set(g.id, { index: g.index, name: g.model?.name ?? g.name });
  return names;
}

/**
 * useBenchmarks loads the provider's benchmark standing once and, once the
 * answer says who the provider is, subscribes to benchmarkUpdated: every
 * machine's standing first, then each result, request and listing change,
 * each replacing that machine's standing, so a GPU turns Listed or Delisted
 * without a reload. Benchmarks change rarely, so nothing is polled; an
 * event naming a GPU the page has no name for (a machine registered since)
 * asks the query again for the names.
 */
export function useBenchmarks(): BenchmarksView {
  const client = useClient();
  const [state, dispatch] = useReducer(standingsReducer, emptyStandings);
  const [providerId, setProviderId] = useState<string | null>(null);
  const [gpuNames, setGpuNames] = useState<ReadonlyMap<string, GpuName>>(new Map());
  const [queryError, setQueryError] = useState<CombinedError | undefined>(undefined);
  const [liveError, setLiveError] = useState<CombinedError | undefined>(undefined);
  const [live, setLive] = useState(false);
  const eventSeq = useRef(0);
  const querying = useRef(false);
  const names = useRef(gpuNames);
  names.current = gpuNames;

  const load = useCallback(async () => {
    if (querying.current) return;
    querying.current = true;
    const askedAfterSeq = eventSeq.current;
    try {
      const res = await client.query(ProviderBenchmarksQuery, {}, { requestPolicy: 'network-only' }).toPromise();
      setQueryError(res.error);
      if (!res.data) return;
      const p = res.data.myProvider;
      setProviderId(p?.id ?? null);
      setGpuNames(namesOf(p?.machines ?? []));
      dispatch({ type: 'loaded', machines: p?.benchmarks ?? [], askedAfterSeq });
    } finally {
      querying.current = false;
    }
  }, [client]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    if (!providerId) return;
    setLive(false);
    const { unsubscribe } = client.subscription(BenchmarkUpdatedSubscription, {}).subscribe((result) => {
      setLiveError(result.error);
      const event = result.data?.benchmarkUpdated;
      if (!event) return;
      setLive(true);
      eventSeq.current += 1;
      dispatch({ type: 'event', machine: event.machine, initial: event.initial, seq: eventSeq.current });
      if (event.machine.gpus.some((g) => !names.current.has(g.gpuId))) void load();
    });
    return unsubscribe;
  }, [client, providerId, load]);

  return { ...state, providerId, gpuNames, live, error: queryError ?? liveError, refresh: () => void load(), dispatch };
}
