import type { RentalFieldsFragment, RentalState } from '../gql/graphql';

// The pure half of the Rentals pages: which states are over, which may be
// stopped, and the list kept live by rentalUpdated.

/** ENDED are the states a rental does not leave. */
const ENDED: ReadonlySet<RentalState> = new Set<RentalState>(['COMPLETED', 'STOPPED', 'FAILED', 'INTERRUPTED']);

/** isEnded reports whether a rental is over. */
export function isEnded(state: RentalState): boolean {
  return ENDED.has(state);
}

/** canStop reports whether the customer may stop a rental in state: asked or running, not already stopping or over. */
export function canStop(state: RentalState): boolean {
  return state === 'STARTING' || state === 'RUNNING';
}

/** stage orders the states a rental passes through; the ended ones are the last. */
function stage(state: RentalState): number {
  if (isEnded(state)) return 3;
  return state === 'STOPPING' ? 2 : state === 'RUNNING' ? 1 : 0;
}

/**
 * isBehind reports whether next is older news than known about the same
 * rental: a rental only moves forward (starting, running, stopping,
 * ended), so a copy in an earlier state arrived late: a stopRental answer
 * (STOPPING) read after the event that the agent had stopped it, a
 * query's answer after a live event, an event queued before another. A
 * copy in the same state is newer (a longer log, a metered charge).
 */
export function isBehind(known: Pick<RentalFieldsFragment, 'state'>, next: Pick<RentalFieldsFragment, 'state'>): boolean {
  return stage(next.state) < stage(known.state);
}

/**
 * mergeRental puts a live rental into a newest-first list: replacing the
 * one with its id unless it is behind it (isBehind), or adding a new one
 * in its place by createdAt.
 */
export function mergeRental<R extends Pick<RentalFieldsFragment, 'id' | 'state' | 'createdAt'>>(list: readonly R[], rental: R): R[] {
  const i = list.findIndex((r) => r.id === rental.id);
  if (i >= 0) {
    const known = list[i];
    if (known && isBehind(known, rental)) return [...list];
    return list.map((r, j) => (j === i ? rental : r));
  }
  const out = [...list, rental];
  return out.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}

/**
 * followLog says whether a log view should scroll to its end on new text:
 * when the reader is at the end already (within a line), not when they
 * have scrolled up to read.
 */
export function followLog(el: { scrollTop: number; scrollHeight: number; clientHeight: number }, slack = 24): boolean {
  return el.scrollHeight - el.scrollTop - el.clientHeight <= slack;
}
