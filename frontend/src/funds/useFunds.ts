import { useCallback, useEffect } from 'react';
import { useQuery, type CombinedError } from 'urql';
import type { MyFundsQuery as MyFundsResult } from '../gql/graphql';
import { MyFundsQuery } from './operations';

/** FUNDS_REFRESH_MS: metering charges the balance every 30 s or so; reading it each minute keeps the figure close. */
const FUNDS_REFRESH_MS = 60_000;

/**
 * FUNDS_CONTEXT: starting or stopping a rental changes what the balance
 * pays for, so a rental in a mutation's answer reads it again.
 */
const FUNDS_CONTEXT = { additionalTypenames: ['Rental'] };

/** FundsView is the customer's balance as useFunds reads it. */
export interface FundsView {
  funds: MyFundsResult['myFunds'] | undefined;
  error: CombinedError | undefined;
  refresh: () => void;
}

/** useFunds reads the signed-in user's prepaid balance, again every minute. */
export function useFunds(): FundsView {
  const [{ data, error }, reexecute] = useQuery({ query: MyFundsQuery, requestPolicy: 'cache-and-network', context: FUNDS_CONTEXT });
  useEffect(() => {
    const timer = window.setInterval(() => reexecute({ requestPolicy: 'network-only' }), FUNDS_REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reexecute]);
  // Stable, so a caller may read the balance again when something it shows changes.
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  return { funds: data?.myFunds, error, refresh };
}
