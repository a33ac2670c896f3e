import { useCallback, useEffect, useRef, useState } from 'react';
import { useClient, type CombinedError } from 'urql';
import type { PathErrors } from '../api/errors';
import type { ListingFieldsFragment, MarketplaceFilter, MarketplaceSort } from '../gql/graphql';
import { filterErrorsOf, PAGE_SIZE } from './filters';
import { MarketplaceQuery } from './operations';

/** ListingsView is what useListings gives the page. */
export interface ListingsView {
  listings: ListingFieldsFragment[];
  /** loaded turns true with the first page of the current search. */
  loaded: boolean;
  fetching: boolean;
  hasMore: boolean;
  error: CombinedError | undefined;
  /** fieldErrors are the server's problems with the filter, by form field; nothing is listed then. */
  fieldErrors: PathErrors;
  loadMore: () => void;
  refresh: () => void;
}

/**
 * useListings asks the marketplace for the first page of a search, and
 * "Load more" for the next one after the last cursor, appending it. A new
 * search starts over; an answer to a search no longer asked is dropped.
 * Listings change as GPUs are rented and schedules open and close, so a
 * page is always asked of the network.
 */
export function useListings(filter: MarketplaceFilter | null, sort: MarketplaceSort): ListingsView {
  const client = useClient();
  const [listings, setListings] = useState<ListingFieldsFragment[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [fetching, setFetching] = useState(false);
  const [error, setError] = useState<CombinedError | undefined>(undefined);
  const [fieldErrors, setFieldErrors] = useState<PathErrors>({});
  const key = JSON.stringify([filter, sort]);
  const current = useRef(key);
  current.current = key;

  const fetchPage = useCallback(
    async (after: string | null) => {
      const asked = key;
      setFetching(true);
      const res = await client.query(MarketplaceQuery, { filter, sort, first: PAGE_SIZE, after }, { requestPolicy: 'network-only' }).toPromise();
      if (current.current !== asked) return;
      setFetching(false);
      setError(res.error);
      const page = res.data?.marketplace;
      if (!page) return;
      setFieldErrors(filterErrorsOf(page.userErrors));
      const nodes = page.edges.map((e) => e.node);
      setListings((prev) => (after === null ? nodes : [...prev, ...nodes.filter((n) => !prev.some((p) => p.id === n.id))]));
      setCursor(page.pageInfo.endCursor ?? null);
      setHasMore(page.pageInfo.hasNextPage);
      setLoaded(true);
    },
    // key stands for filter and sort, so a new object of the same search
    // does not ask again.
    [client, key],
  );

  useEffect(() => {
    setLoaded(false);
    setListings([]);
    void fetchPage(null);
  }, [fetchPage]);

  return {
    listings,
    loaded,
    fetching,
    hasMore,
    error,
    fieldErrors,
    loadMore: () => void fetchPage(cursor),
    refresh: () => void fetchPage(null),
  };
}
