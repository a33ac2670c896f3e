import { useEffect, useState } from 'react';
import { useClient, useQuery, type CombinedError } from 'urql';
import type { ReliabilityFieldsFragment } from '../gql/graphql';
import { ProviderReliabilityQuery, ReliabilityUpdatedSubscription } from './operations';

/** ReliabilityView is what useReliability gives the page. */
export interface ReliabilityView {
  /** providerId is null for a user who is not a provider; undefined while loading. */
  providerId: string | null | undefined;
  /** reliability is the latest: the query's, then each event's. */
  reliability: ReliabilityFieldsFragment | undefined;
  /** live turns true with the first event; events counts them. */
  live: boolean;
  events: number;
  error: CombinedError | undefined;
  refresh: () => void;
}

/**
 * useReliability reads the provider's reliability and, once the provider is
 * known, follows reliabilityUpdated (its score now, then after every
 * change): an event replaces what the page shows unless it is older (asOf)
 * than the query's answer.
 */
export function useReliability(): ReliabilityView {
  const client = useClient();
  const [{ data, error }, reexecute] = useQuery({ query: ProviderReliabilityQuery, requestPolicy: 'cache-and-network' });
  const [event, setEvent] = useState<ReliabilityFieldsFragment | undefined>(undefined);
  const [events, setEvents] = useState(0);
  const [liveError, setLiveError] = useState<CombinedError | undefined>(undefined);
  const providerId = data === undefined ? undefined : (data.myProvider?.id ?? null);

  useEffect(() => {
    if (!providerId) return;
    const { unsubscribe } = client.subscription(ReliabilityUpdatedSubscription, {}).subscribe((result) => {
      setLiveError(result.error);
      const next = result.data?.reliabilityUpdated;
      if (!next) return;
      setEvent(next);
      setEvents((n) => n + 1);
    });
    return unsubscribe;
  }, [client, providerId]);

  const queried = data?.myProvider?.reliability;
  return {
    providerId,
    reliability: newer(queried, event),
    live: events > 0,
    events,
    error: error ?? liveError,
    refresh: () => reexecute({ requestPolicy: 'network-only' }),
  };
}

/** newer is the fresher of two answers by asOf (the event when equal). */
function newer(a: ReliabilityFieldsFragment | undefined, b: ReliabilityFieldsFragment | undefined): ReliabilityFieldsFragment | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(a.asOf) > Date.parse(b.asOf) ? a : b;
}
