import { fieldErrors, type FieldErrors } from '../api/errors';
import type { AuthPayloadFieldsFragment, UserErrorCode } from '../gql/graphql';
import type { SessionUser } from './session';

/**
 * AuthOutcome is what an AuthPayload means for the page that asked: the
 * fields to mark, a session that opened, or (signUp) an email on its way.
 */
export type AuthOutcome =
  | { kind: 'errors'; errors: FieldErrors }
  | { kind: 'signedIn'; user: SessionUser }
  | { kind: 'sent' };

/**
 * authOutcome reads a signUp, confirmEmail or logIn answer. User errors win;
 * then a user means a session opened; then confirmationSent means signUp
 * mailed the address (the same answer whether or not it had an account). An
 * answer with none of these is shown as an error of the whole form.
 */
export function authOutcome(answer: AuthPayloadFieldsFragment, knownFields: readonly string[]): AuthOutcome {
  if (answer.userErrors.length > 0) return { kind: 'errors', errors: fieldErrors(answer.userErrors, knownFields) };
  if (answer.user) return { kind: 'signedIn', user: answer.user };
  if (answer.confirmationSent) return { kind: 'sent' };
  return { kind: 'errors', errors: fieldErrors([{ field: '', code: 'INVALID', message: '' }], knownFields) };
}

/** CONFIRM_EMAIL_PATH is the page the confirmation email's link opens. */
export const CONFIRM_EMAIL_PATH = '/confirm-email';

/**
 * confirmationToken reads the token of a confirmation link's query string
 * (?token=…), or null when there is none worth sending.
 */
export function confirmationToken(search: string): string | null {
  const token = new URLSearchParams(search).get('token')?.trim();
  return token ? token : null;
}

/**
 * confirmErrorCode is the one code a failed confirmation is shown with: the
 * server's code at the field token (INVALID for a used, expired or unknown
 * link), or INVALID when the link carried no token at all.
 */
export function confirmErrorCode(outcome: AuthOutcome | null): UserErrorCode {
  if (outcome?.kind !== 'errors') return 'INVALID';
  const all = Object.values(outcome.errors).flat();
  return all[0] ?? 'INVALID';
}
