import { useMemo } from 'react';
import { useQuery, type CombinedError } from 'urql';
import type { ProviderPricingQuery as ProviderPricingResult } from '../gql/graphql';
import type { Recommendation } from './advice';
import { PricingRecommendationQuery, ProviderPricingQuery } from './operations';

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
  fetching: boolean;
  error: CombinedError | undefined;
  refresh: () => void;
}

/**
 * usePricing loads the provider's prices, schedule and maintenance. A
 * mutation's answer refetches the query (urql's document cache).
 */
export function usePricing(): PricingView {
  const [{ data, fetching, error }, reexecute] = useQuery({ query: ProviderPricingQuery, requestPolicy: 'cache-and-network', context: PRICING_CONTEXT });
  return {
    provider: data?.myProvider,
    fetching,
    error,
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
