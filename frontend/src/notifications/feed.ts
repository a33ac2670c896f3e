import type { NotificationFieldsFragment } from '../gql/graphql';
import { isolate } from '../ui/format';

/** Notification is one in-app notification as the bell shows it. */
export type Notification = NotificationFieldsFragment;

/**
 * Feed is what the bell knows: notifications newest first and the unread
 * count over all of them (the list holds only the first page).
 */
export interface Feed {
  items: Notification[];
  unread: number;
  /** loaded turns true once the first page has arrived. */
  loaded: boolean;
}

/** FeedAction is a change to the feed. */
export type FeedAction =
  | { type: 'loaded'; items: Notification[]; unread: number }
  | { type: 'added'; notification: Notification }
  | { type: 'allRead'; unread: number; readAt: string };

/** emptyFeed is the feed before the first page arrives. */
export const emptyFeed: Feed = { items: [], unread: 0, loaded: false };

/**
 * feedReducer applies one change. Adding is idempotent: the subscription
 * replays everything after its afterId when it reconnects, so a notification
 * already in the list is ignored rather than counted twice.
 */
export function feedReducer(feed: Feed, action: FeedAction): Feed {
  switch (action.type) {
    case 'loaded':
      return { items: action.items, unread: action.unread, loaded: true };
    case 'added': {
      const n = action.notification;
      if (feed.items.some((item) => item.id === n.id)) return feed;
      return {
        ...feed,
        items: [n, ...feed.items],
        unread: feed.unread + (n.readAt ? 0 : 1),
      };
    }
    case 'allRead':
      return {
        ...feed,
        unread: action.unread,
        items: feed.items.map((item) => (item.readAt ? item : { ...item, readAt: action.readAt })),
      };
  }
}

/**
 * REPLAY_ALL is the afterId that asks the server to replay every notification
 * of the user (ids are positive integers, so all are newer than "0").
 */
export const REPLAY_ALL = '0';

/**
 * resumeAfter is the afterId for the subscription: the newest notification
 * the first page holds, or REPLAY_ALL when it holds none, so a notification
 * created between the query and the subscription is replayed, not lost.
 */
export function resumeAfter(items: readonly Notification[]): string {
  return items[0]?.id ?? REPLAY_ALL;
}

/**
 * paramsOf turns the key/value list into interpolation values. Each value is
 * isolated (see isolate) so a Latin name inside an Arabic sentence (or the
 * reverse) does not reorder the punctuation around it.
 * translate may replace a value that is a stable key (a tier) by its name.
 */
export function paramsOf(
  n: Notification,
  translate: (key: string, value: string) => string = (_key, value) => value,
): Record<string, string> {
  return Object.fromEntries(n.params.map((p) => [p.key, isolate(translate(p.key, p.value))]));
}

/**
 * linkOf is the page a notification is about, or null: a new application
 * opens its review page for the admin; a decision opens the applicant's page
 * (the tokens page once approved, where the next step is); a GPU delisted or
 * listed again by a benchmark, or a benchmark result refused, opens the
 * Benchmarks tab; a notice about a
 * customer's balance opens Rentals, one about payouts the Payouts tab; a
 * registration refused for what its agent reported opens the provider's
 * Overview, where its machines and GPUs are.
 */
export function linkOf(n: Notification): string | null {
  const id = n.params.find((p) => p.key === 'applicationId')?.value;
  switch (n.kind) {
    case 'APPLICATION_SUBMITTED':
      return id && /^\w+$/.test(id) ? `/admin/applications/${id}` : '/admin/applications';
    case 'APPLICATION_APPROVED':
      return '/provider/tokens';
    case 'GPU_DELISTED':
    case 'GPU_RELISTED':
    case 'BENCHMARK_REFUSED':
      return '/provider/benchmarks';
    case 'APPLICATION_REJECTED':
    case 'APPLICATION_INFO_REQUESTED':
      return '/provider/application';
    case 'billing.funds_low':
    case 'billing.funds_exhausted':
      return '/rentals';
    case 'deposit.credited':
    case 'deposit.credited_other_amount':
    case 'deposit.credited_late':
    case 'deposit.refused':
      return '/funds';
    case 'billing.payout_method_changed':
    case 'billing.payout_paid':
    case 'billing.payout_failed':
      return '/provider/payouts';
    case 'fleet.gpu_taken':
    case 'fleet.simulated_refused':
      return '/provider/overview';

    default:
      return null;
  }
}
