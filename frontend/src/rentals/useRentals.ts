import { useCallback, useEffect, useState } from 'react';
import { useClient, type CombinedError } from 'urql';
import type { RentalFieldsFragment } from '../gql/graphql';
import { MyRentalsQuery, RentalsUpdatedSubscription } from './operations';
import { mergeRental } from './rentals';

/** RentalsView is what useRentals gives the page. */
export interface RentalsView {
  rentals: RentalFieldsFragment[];
  loaded: boolean;
  live: boolean;
  hasMore: boolean;
  fetching: boolean;
  error: CombinedError | undefined;
  loadMore: () => void;
  refresh: () => void;
}

/**
 * useRentals loads the customer's rentals a page at a time and follows
 * rentalUpdated for all of them: the current state first, then every
 * change, so a rental turns Running or ends without a reload.
 */
export function useRentals(): RentalsView {
  const client = useClient();
  const [rentals, setRentals] = useState<RentalFieldsFragment[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [fetching, setFetching] = useState(false);
  const [live, setLive] = useState(false);
  const [error, setError] = useState<CombinedError | undefined>(undefined);
  const [liveError, setLiveError] = useState<CombinedError | undefined>(undefined);

  const fetchPage = useCallback(
    async (after: string | null) => {
      setFetching(true);
      const res = await client.query(MyRentalsQuery, { first: 20, after }, { requestPolicy: 'network-only' }).toPromise();
      setFetching(false);
      setError(res.error);
      const page = res.data?.myRentals;
      if (!page) return;
      setRentals((prev) => {
        let list = after === null ? prev.filter((p) => !page.edges.some((e) => e.node.id === p.id)) : prev;
        for (const e of page.edges) list = mergeRental(list, e.node);
        return list;
      });
      setCursor(page.pageInfo.endCursor ?? null);
      setHasMore(page.pageInfo.hasNextPage);
      setLoaded(true);
    },
    [client],
  );

  useEffect(() => {
    void fetchPage(null);
  }, [fetchPage]);

  useEffect(() => {
    const { unsubscribe } = client.subscription(RentalsUpdatedSubscription, {}).subscribe((result) => {
      setLiveError(result.error);
      const rental = result.data?.rentalUpdated;
      if (!rental) return;
      setLive(true);
      setRentals((prev) => mergeRental(prev, rental));
    });
    return unsubscribe;
  }, [client]);

  return {
    rentals,
    loaded,
    live,
    hasMore,
    fetching,
    error: error ?? liveError,
    loadMore: () => void fetchPage(cursor),
    refresh: () => void fetchPage(null),
  };
}
