import { useEffect, useMemo, useState } from 'react';
import { useClient, useQuery, type CombinedError } from 'urql';
import type { ProviderRentalFieldsFragment } from '../gql/graphql';
import { ProviderRentalsQuery, ProviderRentalUpdatedSubscription } from './operations';
import { mergeProviderRental } from './rentals';

/** ProviderRentalsView is what useProviderRentals gives the page. */
export interface ProviderRentalsView {
  /** providerId is undefined while loading, null for a user who is no provider. */
  providerId: string | null | undefined;
  /** rentals are the query's, kept live by providerRentalUpdated. */
  rentals: ProviderRentalFieldsFragment[];
  /** live turns true with the first subscription message; events counts them. */
  live: boolean;
  events: number;
  error: CombinedError | undefined;
  refresh: () => void;
}

/**
 * useProviderRentals loads the rentals on the provider's GPUs and, once
 * the provider is known, follows providerRentalUpdated: current rentals
 * first, then every change (a state, or what a metering tick earned), each
 * replacing the rental with its id, so rentals appear, earn and end
 * without a reload.
 */
export function useProviderRentals(): ProviderRentalsView {
  const client = useClient();
  const [{ data, error }, reexecute] = useQuery({ query: ProviderRentalsQuery, requestPolicy: 'cache-and-network' });
  const [updates, setUpdates] = useState<ProviderRentalFieldsFragment[]>([]);
  const [live, setLive] = useState(false);
  const [liveError, setLiveError] = useState<CombinedError | undefined>(undefined);
  const providerId = data ? (data.myProvider?.id ?? null) : undefined;

  useEffect(() => {
    if (!providerId) return;
    const { unsubscribe } = client.subscription(ProviderRentalUpdatedSubscription, {}).subscribe((result) => {
      setLiveError(result.error);
      const rental = result.data?.providerRentalUpdated;
      if (!rental) return;
      setLive(true);
      setUpdates((u) => [...u, rental]);
    });
    return unsubscribe;
  }, [client, providerId]);

  const queried = data?.myProvider?.rentals;
  const rentals = useMemo(() => {
    // The live events apply on top of the latest answer, in order; an event
    // older than the answer carries the same or an earlier state of a
    // rental the answer has, and a later event replaces it again.
    let list = [...(queried ?? [])];
    for (const r of updates) list = mergeProviderRental(list, r);
    return list;
  }, [queried, updates]);

  return {
    providerId,
    rentals,
    live,
    events: updates.length,
    error: error ?? liveError,
    refresh: () => reexecute({ requestPolicy: 'network-only' }),
  };
}
