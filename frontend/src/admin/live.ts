import { useEffect, useRef, useState } from 'react';
import { useClient, type AnyVariables, type CombinedError, type TypedDocumentNode } from 'urql';
import type { ApplicationStatus, QueueRowFieldsFragment } from '../gql/graphql';

// The admin pages are live: each subscribes to providerApplicationChanged,
// which sends the application(s) as they are when it opens and again after
// every submission, resubmission and decision. This module holds the rules
// that merge those messages with what the pages' queries read.

/** Versioned is the part of an application that dates a copy of it. */
interface Versioned {
  updatedAt: string;
}

/**
 * fresher returns the more recent of two copies of one application: every
 * change (a submission, a resubmission, a decision) moves updatedAt on. On a
 * tie both copies describe the same change, and b is returned.
 */
export function fresher<T extends Versioned>(a: T | null | undefined, b: T | null | undefined): T | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return Date.parse(a.updatedAt) > Date.parse(b.updatedAt) ? a : b;
}

/** QueueRow is what the review queue shows of one application. */
export type QueueRow = QueueRowFieldsFragment;

/** LoadedQueue is what the queue's pages hold, newest first. */
export interface LoadedQueue {
  /** rows are the loaded applications by id. */
  rows: ReadonlyMap<string, QueueRow>;
  /** oldestId is the id of the oldest loaded application, if any. */
  oldestId: string | null;
  /** complete is true when no further page exists. */
  complete: boolean;
}

/** compareIds orders two numeric ids (decimal strings of any length). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * changesMembership reports whether app, as a live message shows it, enters
 * or leaves the queue's view (all applications, or those in status filter):
 * a new application, or one that moved into or out of the filtered status.
 * The loaded pages cannot show that by updating a row, so they are read
 * again. An application older than every loaded one, with more pages to
 * load, is left to "load more". A message older than the loaded copy
 * changes nothing.
 */
export function changesMembership(loaded: LoadedQueue, filter: ApplicationStatus | null, app: QueueRow): boolean {
  const belongs = filter === null || app.status === filter;
  const shown = loaded.rows.get(app.id);
  if (shown) return fresher(app, shown) === app && !belongs;
  if (!belongs) return false;
  return loaded.complete || loaded.oldestId === null || compareIds(app.id, loaded.oldestId) > 0;
}

/** LiveState says whether a subscription is delivering. */
export interface LiveState {
  /** live turns true with the first message (the current state). */
  live: boolean;
  /** error is the subscription's last error, if any. */
  error: CombinedError | undefined;
}

/**
 * useLiveMessages subscribes to query with variables while the component is
 * mounted (and again when the API client changes, as it does when the user
 * does) and calls onData with every message, in order. The latest onData is
 * used, so it may close over fresh state without resubscribing. variables
 * are compared by value.
 */
export function useLiveMessages<Data, Variables extends AnyVariables>(
  query: TypedDocumentNode<Data, Variables>,
  variables: Variables,
  onData: (data: Data) => void,
): LiveState {
  const client = useClient();
  const [state, setState] = useState<LiveState>({ live: false, error: undefined });
  const latest = useRef(onData);
  useEffect(() => {
    latest.current = onData;
  });
  const key = JSON.stringify(variables);
  useEffect(() => {
    setState({ live: false, error: undefined });
    const vars = JSON.parse(key) as Variables;
    const { unsubscribe } = client.subscription(query, vars).subscribe((result) => {
      if (result.error) setState((s) => ({ ...s, error: result.error }));
      if (!result.data) return;
      setState({ live: true, error: undefined });
      latest.current(result.data);
    });
    return unsubscribe;
  }, [client, query, key]);
  return state;
}
