import { useEffect, useMemo, useState } from 'react';
import { useClient, useQuery, type CombinedError } from 'urql';
import type { ProviderPricingQuery as ProviderPricingResult, ProviderRentalFieldsFragment } from '../gql/graphql';
import type { Recommendation } from './advice';
import { PricingRecommendationQuery, ProviderPricingQuery, ProviderRentalUpdatedSubscription } from './operations';
import { mergeProviderRental } from './pricing';

/**
 * PRICING_CONTEXT: an empty price or maintenance list names no typename in
 * urql's document cache, so the query says it depends on them and a
 * mutation answering with one refetches it. A constant, so the query is not
 * re-run on every render.
 */
const PRICING_CONTEXT = { additionalTypenames: ['GpuPrice', 'MaintenanceWindow', 'AvailabilitySchedule'] };

type Provider = NonNullable<ProviderPricingResult['myProvider']>;

/** PricingView is what usePricing gives the page. */
export interface PricingView {
  provider: Provider | null | undefined;
  /** rentals are the query's, kept live by providerRentalUpdated. */
  rentals: ProviderRentalFieldsFragment[];
  /** live turns true with the first subscription message; events counts them. */
  live: boolean;
  events: number;
  fetching: boolean;
  error: CombinedError | undefined;
  refresh: () => void;
}

/**
 * usePricing loads the provider's prices, schedule, maintenance and
 * rentals, and once the provider is known follows providerRentalUpdated:
 * current rentals first, then every change, each replacing the rental with
 * its id, so a rental on the provider's GPUs appears and ends without a
 * reload. A mutation's answer refetches the query (urql's document cache).
 */
export function usePricing(): PricingView {
  const client = useClient();
  const [{ data, fetching, error }, reexecute] = useQuery({ query: ProviderPricingQuery, requestPolicy: 'cache-and-network', context: PRICING_CONTEXT });
  const [updates, setUpdates] = useState<ProviderRentalFieldsFragment[]>([]);
  const [live, setLive] = useState(false);
  const [liveError, setLiveError] = useState<CombinedError | undefined>(undefined);
  const providerId = data?.myProvider?.id ?? null;

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
    provider: data?.myProvider,
    rentals,
    live,
    events: updates.length,
    fetching,
    error: error ?? liveError,
    refresh: () => reexecute({ requestPolicy: 'network-only' }),
  };
}

/**
 * ADVICE_CONTEXT: the advice names no GpuPrice, yet its current outcome
 * is the provider's rate, so any rate set (the form or the advice's own
 * apply button, both answering with a GpuPrice) refetches it.
 */
const ADVICE_CONTEXT = { additionalTypenames: ['GpuPrice'] };

/** PriceAdviceView is what usePriceAdvice gives a model's card. */
export interface PriceAdviceView {
  advice: Recommendation | undefined;
  /** fetching is true while the advice is loaded, or loaded again. */
  fetching: boolean;
  error: CombinedError | undefined;
  refresh: () => void;
}

/**
 * usePriceAdvice loads the price advice for one model in the provider's
 * own region, and loads it again whenever a rate is set.
 */
export function usePriceAdvice(model: string): PriceAdviceView {
  const variables = useMemo(() => ({ model }), [model]);
  const [{ data, fetching, stale, error }, reexecute] = useQuery({ query: PricingRecommendationQuery, variables, requestPolicy: 'cache-and-network', context: ADVICE_CONTEXT });
  return {
    advice: data?.pricingRecommendation,
    // A refetch after a rate is set shows the last answer, stale, until the new one.
    fetching: fetching || stale,
    error,
    refresh: () => reexecute({ requestPolicy: 'network-only' }),
  };
}
