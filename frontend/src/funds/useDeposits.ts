import { useCallback, useEffect, useRef, useState } from 'react';
import { useClient, type CombinedError } from 'urql';
import type { DepositsQuery as DepositsResult } from '../gql/graphql';
import { mergeDeposit, newlyCredited, type Deposit } from './deposits';
import { DepositsQuery, DepositUpdatedSubscription } from './operations';

/** DepositsView is what useDeposits gives the Funds page. */
export interface DepositsView {
  terms: DepositsResult['depositTerms'] | undefined;
  deposits: Deposit[];
  loaded: boolean;
  live: boolean;
  error: CombinedError | undefined;
  /** add puts a request just made at the top. */
  add: (d: Deposit) => void;
}

/**
 * useDeposits loads the terms and the customer's latest requests and
 * follows depositUpdated: each request again as it is seen, credited or
 * refused, without a reload. onCredited runs when a request credited more
 * (the balance changed).
 */
export function useDeposits(onCredited: () => void): DepositsView {
  const client = useClient();
  const [terms, setTerms] = useState<DepositsResult['depositTerms'] | undefined>(undefined);
  const [deposits, setDeposits] = useState<Deposit[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [live, setLive] = useState(false);
  const [error, setError] = useState<CombinedError | undefined>(undefined);
  const credited = useRef(onCredited);
  credited.current = onCredited;

  useEffect(() => {
    let stop = false;
    void client
      .query(DepositsQuery, { first: 20 }, { requestPolicy: 'network-only' })
      .toPromise()
      .then((res) => {
        if (stop) return;
        setError(res.error);
        if (!res.data) return;
        setTerms(res.data.depositTerms);
        setDeposits((prev) => res.data!.myDeposits.reduce(mergeDeposit, prev));
        setLoaded(true);
      });
    return () => {
      stop = true;
    };
  }, [client]);

  useEffect(() => {
    const { unsubscribe } = client.subscription(DepositUpdatedSubscription, {}).subscribe((result) => {
      if (result.error) setError(result.error);
      const d = result.data?.depositUpdated;
      if (!d) return;
      setLive(true);
      setDeposits((prev) => {
        if (newlyCredited(prev, d)) window.setTimeout(() => credited.current(), 0);
        return mergeDeposit(prev, d);
      });
    });
    return unsubscribe;
  }, [client]);

  const add = useCallback((d: Deposit) => setDeposits((prev) => mergeDeposit(prev, d)), []);
  return { terms, deposits, loaded, live, error, add };
}
