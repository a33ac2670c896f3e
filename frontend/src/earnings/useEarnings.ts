import { useEffect, useState } from 'react';
import { useClient, useQuery, type CombinedError } from 'urql';
import type { EarningsFieldsFragment } from '../gql/graphql';
import { EarningsUpdatedSubscription, ProviderEarningsQuery } from './operations';

/** EarningsView is what useEarnings gives the page. */
export interface EarningsView {
  /** providerId is null for a user who is not a provider; undefined while loading. */
  providerId: string | null | undefined;
  /** earnings are the latest figures: the query's, then each event's. */
  earnings: EarningsFieldsFragment | undefined;
  /** live turns true with the first event; events counts them. */
  live: boolean;
  events: number;
  error: CombinedError | undefined;
  refresh: () => void;
}

/**
 * useEarnings reads the provider's earnings tracker and, once the provider
 * is known, follows earningsUpdated: each event is the tracker as it is
 * then, and replaces what the page shows when it is not older (asOf) than
 * it. Between events the page advances the net by the accrual rate.
 */
export function useEarnings(): EarningsView {
  const client = useClient();
  const [{ data, error }, reexecute] = useQuery({ query: ProviderEarningsQuery, requestPolicy: 'cache-and-network' });
  const [event, setEvent] = useState<EarningsFieldsFragment | undefined>(undefined);
  const [events, setEvents] = useState(0);
  const [liveError, setLiveError] = useState<CombinedError | undefined>(undefined);
  const providerId = data === undefined ? undefined : (data.myProvider?.id ?? null);

  useEffect(() => {
    if (!providerId) return;
    const { unsubscribe } = client.subscription(EarningsUpdatedSubscription, {}).subscribe((result) => {
      setLiveError(result.error);
      const next = result.data?.earningsUpdated;
      if (!next) return;
      setEvent(next);
      setEvents((n) => n + 1);
    });
    return unsubscribe;
  }, [client, providerId]);

  const queried = data?.myProvider?.earnings;
  const earnings = newer(queried, event);
  return {
    providerId,
    earnings,
    live: events > 0,
    events,
    error: error ?? liveError,
    refresh: () => reexecute({ requestPolicy: 'network-only' }),
  };
}

/** newer is the fresher of two trackers by asOf (the event when equal). */
function newer(a: EarningsFieldsFragment | undefined, b: EarningsFieldsFragment | undefined): EarningsFieldsFragment | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(a.asOf) > Date.parse(b.asOf) ? a : b;
}
