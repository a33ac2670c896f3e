import type { Role } from '../gql/graphql';

/** OVERVIEW_PATH is a provider's landing page. */
export const OVERVIEW_PATH = '/provider/overview';
/** ACCOUNT_PATH is the landing page of a signed-in user who is not a provider. */
export const ACCOUNT_PATH = '/account';

/**
 * landingPath is where a signed-in user starts when nothing else says where
 * to go: a provider on their Overview, anyone else on their account.
 */
export function landingPath(roles: readonly Role[]): string {
  return roles.includes('PROVIDER') ? OVERVIEW_PATH : ACCOUNT_PATH;
}
