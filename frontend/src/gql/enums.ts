export type AgentCommandKind =
  | 'RUN_BENCHMARK'
  | 'SET_INTERVAL'
  | 'START_JOB'
  | 'STOP_JOB';

export type ApplicationAction =
  | 'APPROVED'
  | 'INFO_REQUESTED'
  | 'REJECTED'
  | 'RESUBMITTED'
  | 'SUBMITTED';

export type ApplicationStatus =
  | 'APPROVED'
  | 'INFO_REQUESTED'
  | 'REJECTED'
  | 'SUBMITTED';

export type AvailabilityKind =
  | 'ALWAYS'
  | 'WEEKLY';

/**
 * ErrorCode is the extensions.code of a top-level GraphQL error (in
 * "errors", beside or instead of "data"). The server sends no other value.
 * No field returns it: it is here so that clients' generated types carry the
 * whole list.
 */
export type ErrorCode =
  /** The request is not a GraphQL request the server can take (an undecodable body, no query), or a refusal without a code of its own. */
  | 'BAD_REQUEST'
  /** The input was refused as a whole (a mutation without userErrors, a body over the size limit). */
  | 'BAD_USER_INPUT'
  /** The operation's complexity exceeds the server's limit. */
  | 'COMPLEXITY_LIMIT_EXCEEDED'
  /** The change conflicts with the current state; reload and retry. */
  | 'CONFLICT'
  /** The operation's selections nest deeper than the server's limit. */
  | 'DEPTH_LIMIT_EXCEEDED'
  /** Signed in, but not allowed to do this. */
  | 'FORBIDDEN'
  /** The document does not parse. */
  | 'GRAPHQL_PARSE_FAILED'
  /** The document does not validate against the schema, or names an operation it does not hold. */
  | 'GRAPHQL_VALIDATION_FAILED'
  /** The server failed; nothing about the cause is shown. */
  | 'INTERNAL'
  /** The object does not exist, or the caller may not see it. */
  | 'NOT_FOUND'
  /** An automatic persisted query whose hash the server does not hold; send it again with the query. */
  | 'PERSISTED_QUERY_NOT_FOUND'
  /** Too many requests; retry later. */
  | 'RATE_LIMITED'
  /** No valid session or agent token; sign in (or give the agent a valid token) and retry. */
  | 'UNAUTHENTICATED';

export type MachineStatus =
  | 'OFFLINE'
  | 'ONLINE';

/** Why a machine is offline. */
export type OfflineReason =
  /** Registered but never heard from since. */
  | 'NEVER_SEEN'
  /** The agent said it was stopping (SIGTERM, maintenance). */
  | 'PLANNED'
  /** Heartbeats stopped without notice (grace period of 3 intervals). */
  | 'UNPLANNED';

export type ProviderTier =
  /** Individuals, small firms, home and office setups. */
  | 'COMMUNITY'
  /** Professional datacenter: UPS mandatory, premium placement, enterprise contracts. */
  | 'ENTERPRISE';

/** Role is what a user may do on the platform. */
export type Role =
  | 'ADMIN'
  | 'CUSTOMER'
  | 'PROVIDER';

/**
 * UserErrorCode is the reason of a UserError. Clients translate by code, and
 * by field where one code needs different words for different fields.
 */
export type UserErrorCode =
  /** The user already has a provider application under review. */
  | 'ALREADY_OPEN'
  /** The user is already an approved provider. */
  | 'ALREADY_PROVIDER'
  /** A list holds the same entry twice. */
  | 'DUPLICATE'
  /** An availability window that does not end after it starts. */
  | 'EMPTY_WINDOW'
  /** The value is not of the accepted form: an address that is not an email, a control character, an identifier out of its pattern, a choice not offered. */
  | 'INVALID'
  /** The email and password do not match an account. */
  | 'INVALID_CREDENTIALS'
  /** The provider application's status does not allow this action. */
  | 'INVALID_STATE'
  /** A time later than the server's clock allows; the sender's clock is ahead. */
  | 'IN_FUTURE'
  /** A number outside its bounds, or not a finite number. */
  | 'OUT_OF_RANGE'
  /** An availability window that overlaps another on the same day. */
  | 'OVERLAP'
  /** The field is missing or empty. */
  | 'REQUIRED'
  /** The email belongs to another account. */
  | 'TAKEN'
  /** The value has more characters than allowed. */
  | 'TOO_LONG'
  /** A list longer than allowed, or a limit on held things (such as active agent tokens) reached. */
  | 'TOO_MANY'
  /** The value has fewer characters than allowed. */
  | 'TOO_SHORT'
  /** A GPU model the catalogue does not list; choose OTHER and name it. */
  | 'UNKNOWN_MODEL'
  /** Not an IANA time zone name such as Europe/Lisbon. */
  | 'UNKNOWN_TIME_ZONE'
  /** The Enterprise tier requires UPS protection. */
  | 'UPS_REQUIRED';

export type Weekday =
  | 'FRIDAY'
  | 'MONDAY'
  | 'SATURDAY'
  | 'SUNDAY'
  | 'THURSDAY'
  | 'TUESDAY'
  | 'WEDNESDAY';
