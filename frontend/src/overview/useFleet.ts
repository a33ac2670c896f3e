import { useEffect, useReducer, useState } from 'react';
import { useClient, type CombinedError } from 'urql';
import type { ProviderFleetQuery as ProviderFleetResult } from '../gql/graphql';
import { emptyFleet, fleetReducer, type Fleet } from './fleet';
import { MachineStatusChangedSubscription, ProviderFleetQuery } from './operations';

/** Provider is who the Overview is about. */
export type FleetProvider = Omit<NonNullable<ProviderFleetResult['myProvider']>, 'machines'>;

/** FleetView is what useFleet gives the page. */
export interface FleetView extends Fleet {
  /**
   * provider is the signed-in provider, null until the query answers (or if
   * the server knows no provider record for the user). Only a user with the
   * PROVIDER role should run useFleet (see OverviewPage).
   */
  provider: FleetProvider | null;
  /**
   * live turns true with the first subscription message: from then on,
   * transitions and telemetry arrive as they happen. (A provider without
   * machines gets no message until the first transition, so it stays false
   * until then.)
   */
  live: boolean;
  /** error is the query's or the subscription's last error, if any. */
  error: CombinedError | undefined;
  /** refresh asks the query again (the retry of a failed first load). */
  refresh: () => void;
}

/**
 * useFleet keeps the provider's machines current. It asks ProviderFleet
 * once and, once the answer names the provider, follows
 * machineStatusChanged: every machine's state, then each transition and a
 * telemetry sample of each online machine every few seconds, each event the
 * whole machine. Nothing is polled. graphql-ws reopens the subscription
 * after a network blip, and the server sends the current state again; a
 * subscription the server ends (one that fell behind) is opened again, for
 * the same.
 */
export function useFleet(): FleetView {
  const client = useClient();
  const [fleet, dispatch] = useReducer(fleetReducer, emptyFleet);
  const [provider, setProvider] = useState<FleetProvider | null>(null);
  const [loadError, setLoadError] = useState<CombinedError | undefined>(undefined);
  const [liveError, setLiveError] = useState<CombinedError | undefined>(undefined);
  const [live, setLive] = useState(false);
  // Bumped to ask the query again, and to open the subscription again.
  const [load, setLoad] = useState(0);
  const [follow, setFollow] = useState(0);

  useEffect(() => {
    let current = true;
    void client
      .query(ProviderFleetQuery, {}, { requestPolicy: 'network-only' })
      .toPromise()
      .then((res) => {
        if (!current) return;
        setLoadError(res.error);
        if (!res.data) return;
        const p = res.data.myProvider;
        setProvider(p ? { id: p.id, name: p.name, tier: p.tier } : null);
        dispatch({ type: 'loaded', machines: p?.machines ?? [] });
      });
    return () => {
      current = false;
    };
  }, [client, load]);

  // The subscription is for providers only: it opens once the answer says
  // the user is one.
  const providerId = provider?.id;
  useEffect(() => {
    if (!providerId) return;
    setLive(false);
    const { unsubscribe } = client.subscription(MachineStatusChangedSubscription, {}).subscribe((result) => {
      setLiveError(result.error);
      if (result.hasNext === false) {
        // The server ended it (urql repeats the last data to say so).
        if (!result.error) setFollow((n) => n + 1);
        return;
      }
      const event = result.data?.machineStatusChanged;
      if (!event) return;
      setLive(true);
      dispatch({ type: 'event', kind: event.kind, machine: event.machine });
    });
    return unsubscribe;
  }, [client, providerId, follow]);

  return { ...fleet, provider, live, error: loadError ?? liveError, refresh: () => setLoad((n) => n + 1) };
}
