import type { ProviderRentalFieldsFragment } from '../gql/graphql';
import { isBehind, isEnded } from '../rentals/rentals';

// The provider's rentals as a list kept live, and how long each has run.

/**
 * mergeProviderRental puts a live rental into the list: replacing the one
 * with its id, or adding it; running ones first (newest first), then the
 * ended ones (latest ended first), as the API lists them. A copy behind
 * the one known (isBehind: an older event that still has it running) is
 * dropped.
 */
export function mergeProviderRental(list: readonly ProviderRentalFieldsFragment[], rental: ProviderRentalFieldsFragment): ProviderRentalFieldsFragment[] {
  const known = list.find((r) => r.id === rental.id);
  if (known && isBehind(known, rental)) return [...list];
  const out = list.filter((r) => r.id !== rental.id);
  out.push(rental);
  const ended = (r: ProviderRentalFieldsFragment) => isEnded(r.state);
  const time = (r: ProviderRentalFieldsFragment) => Date.parse(ended(r) ? (r.endedAt ?? r.createdAt) : r.createdAt);
  return out.sort((a, b) => Number(ended(a)) - Number(ended(b)) || time(b) - time(a));
}

/**
 * elapsedSeconds is how long a rental has run: from its start to its end,
 * or to nowMs while it runs; zero before it started.
 */
export function elapsedSeconds(r: Pick<ProviderRentalFieldsFragment, 'startedAt' | 'endedAt'>, nowMs: number): number {
  if (!r.startedAt) return 0;
  const end = r.endedAt ? Date.parse(r.endedAt) : nowMs;
  return Math.max(0, Math.floor((end - Date.parse(r.startedAt)) / 1000));
}
