import type { CombinedError } from 'urql';
import type { ErrorCode as ServerErrorCode } from '../gql/enums';
import type { UserErrorCode, UserErrorFieldsFragment } from '../gql/graphql';

/**
 * ErrorCode is what the user is told a request failed with: one of the
 * server's codes (the schema's ErrorCode enum, the extensions.code of a
 * top-level error), or NETWORK when the server was not reached. The SPA
 * translates each under errors.codes.<CODE>.
 */
export type ErrorCode = ServerErrorCode | 'NETWORK';

/**
 * HANDLED holds every ErrorCode. It is a Record so the compiler keeps it
 * equal to the schema: a code the server adds to its enum is a missing key
 * here and fails `npm run typecheck` (after `npm run codegen`) until the SPA
 * handles it, and ErrorNotice's typed t() call then asks for its
 * translation; a code the server drops is an excess key.
 */
const HANDLED: Record<ErrorCode, true> = {
  UNAUTHENTICATED: true,
  FORBIDDEN: true,
  NOT_FOUND: true,
  BAD_USER_INPUT: true,
  CONFLICT: true,
  RATE_LIMITED: true,
  BAD_REQUEST: true,
  GRAPHQL_PARSE_FAILED: true,
  GRAPHQL_VALIDATION_FAILED: true,
  COMPLEXITY_LIMIT_EXCEEDED: true,
  DEPTH_LIMIT_EXCEEDED: true,
  PERSISTED_QUERY_NOT_FOUND: true,
  INTERNAL: true,
  UNAVAILABLE: true,
  NETWORK: true,
};

/** ERROR_CODES lists every ErrorCode the SPA tells the user about. */
export const ERROR_CODES = Object.keys(HANDLED) as readonly ErrorCode[];

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(HANDLED, code);
}

/**
 * errorCode reduces an urql error to the one code the user is told about:
 * the first known extensions.code, NETWORK when the server was not reached,
 * INTERNAL for anything else (a server newer than this SPA).
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
export type FieldErrors = Record<string, UserErrorCode[]>;

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
export type PathErrors = Record<string, UserErrorCode[]>;

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
