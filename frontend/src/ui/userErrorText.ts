import type { TFunction } from 'i18next';
import type { UserErrorCode } from '../gql/graphql';

/**
 * userErrorText translates a UserError code, preferring a message specific to
 * the field (userErrors.password.TOO_SHORT) over the generic one
 * (userErrors.TOO_SHORT), and falling back to userErrors.UNKNOWN for a code
 * this version of the SPA does not know yet. A nested field path
 * (gpus.0.quantity) is looked up by its last name (quantity); a list index
 * (windows.0) has no specific messages and gets the generic one.
 */
export function userErrorText(t: TFunction, field: string, code: UserErrorCode): string {
  const name = field.split('.').pop() ?? field;
  const specific = /^[A-Za-z]\w*$/.test(name) ? [`userErrors.${name}.${code}`] : [];
  // Keys are built from server data, so they are checked at run time by the
  // fallback chain rather than at compile time.
  const keys = [...specific, `userErrors.${code}`, 'userErrors.UNKNOWN'];
  return t(keys as unknown as 'userErrors.UNKNOWN');
}
