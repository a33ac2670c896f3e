import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { useClient, type CombinedError } from 'urql';
import type { ProviderFleetQuery as ProviderFleetResult } from '../gql/graphql';
import { emptyFleet, fleetReducer, type Fleet } from './fleet';
import { MachineStatusChangedSubscription, ProviderFleetQuery } from './operations';

/**
 * TELEMETRY_REFRESH_MS is how often the Overview asks for telemetry again.
 * Heartbeats write nothing and publish nothing in steady state (by design:
 * that keeps the server's hot path cheap), so telemetry is polled while
 * status transitions arrive live over the subscription.
 */
export const TELEMETRY_REFRESH_MS = 10_000;

/** Provider is who the Overview is about. */
export type FleetProvider = Omit<NonNullable<ProviderFleetResult['myProvider']>, 'machines'>;

/** FleetView is what useFleet gives the page. */
export interface FleetView extends Fleet {
  /**
   * provider is the signed-in provider, null until the first poll answers
   * (or if the server knows no provider record for the user). Only a user
   * with the PROVIDER role should run useFleet (see OverviewPage).
   */
  provider: FleetProvider | null;
  /**
   * live turns true with the first subscription message: from then on,
   * transitions arrive as they happen. (A provider without machines gets no
   * message until the first transition, so it stays false until then.)
   */
  live: boolean;
  /** error is the last failed poll or the subscription's error, if any. */
  error: CombinedError | undefined;
  /** refresh polls now (the retry of a failed first load). */
  refresh: () => void;
}

/**
 * useFleet keeps the provider's machines current: it polls ProviderFleet
 * (network-only) every TELEMETRY_REFRESH_MS for telemetry and, once the
 * first poll has returned the provider, subscribes to machineStatusChanged so
 * every Online/Offline transition shows at once, without a reload. Both
 * feed one reducer that resolves their races (see fleetReducer).
 */
export function useFleet(): FleetView {
  const client = useClient();
  const [fleet, dispatch] = useReducer(fleetReducer, emptyFleet);
  const [provider, setProvider] = useState<FleetProvider | null>(null);
  const [pollError, setPollError] = useState<CombinedError | undefined>(undefined);
  const [liveError, setLiveError] = useState<CombinedError | undefined>(undefined);
  const [live, setLive] = useState(false);
  // eventSeq numbers subscription events; a poll remembers the number
  // current when it was sent. A ref: it changes without re-rendering.
  const eventSeq = useRef(0);
  const polling = useRef(false);

  const poll = useCallback(async () => {
    if (polling.current) return;
    polling.current = true;
    const askedAfterSeq = eventSeq.current;
    try {
      const res = await client.query(ProviderFleetQuery, {}, { requestPolicy: 'network-only' }).toPromise();
      setPollError(res.error);
      if (!res.data) return;
      const p = res.data.myProvider;
      setProvider(p ? { id: p.id, name: p.name, tier: p.tier } : null);
      dispatch({ type: 'polled', machines: p?.machines ?? [], askedAfterSeq });
    } finally {
      polling.current = false;
    }
  }, [client]);

  // Poll at once, then on the interval while the tab is visible, and again
  // as soon as it becomes visible.
  useEffect(() => {
    void poll();
    const timer = window.setInterval(() => {
      if (document.visibilityState !== 'hidden') void poll();
    }, TELEMETRY_REFRESH_MS);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void poll();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [poll]);

  // The subscription is for providers only; open it once the first answer
  // says the user is one. It sends every machine's state first, then each
  // transition; graphql-ws reopens it after a network blip, and the state
  // it resends then repairs anything missed meanwhile.
  const providerId = provider?.id;
  useEffect(() => {
    if (!providerId) return;
    setLive(false);
    const { unsubscribe } = client.subscription(MachineStatusChangedSubscription, {}).subscribe((result) => {
      setLiveError(result.error);
      const event = result.data?.machineStatusChanged;
      if (!event) return;
      setLive(true);
      eventSeq.current += 1;
      dispatch({ type: 'event', machine: event.machine, initial: event.initial, seq: eventSeq.current });
    });
    return unsubscribe;
  }, [client, providerId]);

  return { ...fleet, provider, live, error: pollError ?? liveError, refresh: () => void poll() };
}
