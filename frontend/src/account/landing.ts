import type { Role } from '../gql/graphql';

/** OVERVIEW_PATH is a provider's landing page. */
export const OVERVIEW_PATH = '/provider/overview';
/** REVIEW_QUEUE_PATH is an admin's landing page: the applications awaiting review. */
export const REVIEW_QUEUE_PATH = '/admin/applications';
/** ACCOUNT_PATH is the landing page of a signed-in user who is neither. */
export const ACCOUNT_PATH = '/account';

/**
 * landingPath is where a signed-in user starts when nothing else says where
 * to go: an admin on the review queue (their daily work, even when they
 * also provide GPUs), a provider on their Overview, anyone else on their
 * account.
 */
export function landingPath(roles: readonly Role[]): string {
  if (roles.includes('ADMIN')) return REVIEW_QUEUE_PATH;
  return roles.includes('PROVIDER') ? OVERVIEW_PATH : ACCOUNT_PATH;
}
