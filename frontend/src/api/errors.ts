import type { CombinedError } from 'urql';
import type { UserErrorFieldsFragment } from '../gql/graphql';

/**
 * ERROR_CODES are the top-level error codes the server puts in
 * extensions.code; the SPA translates each under errors.codes.<CODE>.
 */
export const ERROR_CODES = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'RATE_LIMITED',
  'BAD_REQUEST',
  'INTERNAL',
  'NETWORK',
] as const;

/** ErrorCode is one of ERROR_CODES. */
export type ErrorCode = (typeof ERROR_CODES)[number];

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);
}

/**
 * errorCode reduces an urql error to the one code the user is told about:
 * the first known extensions.code, NETWORK when the server was not reached,
 * INTERNAL for anything else.
 */
export function errorCode(error: CombinedError): ErrorCode {
  for (const gqlError of error.graphQLErrors) {
    const code = gqlError.extensions?.code;
    if (isErrorCode(code)) return code;
  }
  if (error.networkError) return 'NETWORK';
  return 'INTERNAL';
}

/** UserErrorLike is a UserError as every mutation selects it (UserErrorFields in operations.ts). */
export type UserErrorLike = UserErrorFieldsFragment;

/**
 * FieldErrors maps a form field name (the last segment of UserError.field,
 * so input.email becomes email) to its error codes; errors whose field names
 * no form field are kept under FORM_FIELD.
 */
export type FieldErrors = Record<string, string[]>;

/** FORM_FIELD collects user errors that belong to the form as a whole. */
export const FORM_FIELD = '_form';

/** fieldErrors groups userErrors by form field, keeping only known fields. */
export function fieldErrors(
  userErrors: readonly UserErrorLike[],
  knownFields: readonly string[],
): FieldErrors {
  const out: FieldErrors = {};
  for (const e of userErrors) {
    const name = e.field.split('.').pop() ?? '';
    const key = knownFields.includes(name) ? name : FORM_FIELD;
    (out[key] ??= []).push(e.code);
  }
  return out;
}

/**
 * PathErrors maps the full path of a UserError.field, less a leading
 * "input.", to its codes: gpus.1.availability.windows.0.end for a field of a
 * nested, repeatable form, where the last segment alone would be ambiguous.
 */
export type PathErrors = Record<string, string[]>;

/** errorsByPath groups userErrors by their field path without "input.". */
export function errorsByPath(userErrors: readonly UserErrorLike[]): PathErrors {
  const out: PathErrors = {};
  for (const e of userErrors) {
    const path = e.field.replace(/^input(\.|$)/, '') || FORM_FIELD;
    (out[path] ??= []).push(e.code);
  }
  return out;
}

/**
 * splitByKnown keeps the errors whose path a form shows at a field and moves
 * every other one to FORM_FIELD, so no error the server sent goes unseen.
 */
export function splitByKnown(errors: PathErrors, known: ReadonlySet<string>): PathErrors {
  const out: PathErrors = {};
  for (const [path, codes] of Object.entries(errors)) {
    const key = known.has(path) ? path : FORM_FIELD;
    (out[key] ??= []).push(...codes);
  }
  return out;
}
