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

/** What a benchmark's evidence points at. */
export type BenchmarkGuidanceCode =
  /** Under the reference with no cause in the evidence. */
  | 'CHECK_HARDWARE'
  | 'DRIVER_ERROR'
  | 'MEMORY_ERRORS'
  | 'PCIE_LINK_REDUCED'
  | 'POWER_THROTTLING'
  | 'SLOW_DISK'
  | 'SLOW_UPLINK'
  | 'THERMAL_THROTTLING';

/** A benchmark figure's name; its unit is part of the name. */
export type BenchmarkMetric =
  /** FP16 (half2 FMA) throughput, TFLOPS. */
  | 'FP16_TFLOPS'
  /** FP32 FMA throughput, TFLOPS. */
  | 'FP32_TFLOPS'
  /** Device memory copy bandwidth (bytes read plus written), GB/s. */
  | 'MEMORY_COPY_GBS'
  /** Device memory read bandwidth, GB/s. */
  | 'MEMORY_READ_GBS'
  /** Device memory write bandwidth, GB/s. */
  | 'MEMORY_WRITE_GBS'
  /** Download throughput from the platform, Mbit/s. */
  | 'NETWORK_DOWNLOAD_MBITS'
  /** Median round trip of a small request to the platform, ms. */
  | 'NETWORK_LATENCY_MS'
  /** Upload throughput to the platform, Mbit/s. */
  | 'NETWORK_UPLOAD_MBITS'
  /** Random 4 KiB reads per second. */
  | 'STORAGE_RANDOM_READ_IOPS'
  /** Sequential read, MB/s. */
  | 'STORAGE_READ_MBS'
  /** Sequential write with fsync, MB/s. */
  | 'STORAGE_WRITE_MBS'
  /** Tensor-core throughput, BF16 inputs with FP32 accumulate, TFLOPS. */
  | 'TENSOR_BF16_TFLOPS'
  /** Tensor-core throughput, FP16 inputs with FP32 accumulate, TFLOPS. */
  | 'TENSOR_FP16_TFLOPS';

/** How one part of a run ended. */
export type BenchmarkOutcome =
  | 'COMPLETED'
  /** Ended early; error names why (the driver's error name for a GPU). */
  | 'FAILED'
  /** Not run because the GPU was running a customer's job; it runs later. */
  | 'POSTPONED';

/** A part of a benchmark run: the network, the storage or one GPU. */
export type BenchmarkPart =
  | 'GPU'
  | 'NETWORK'
  | 'STORAGE';

/** Why a run was asked for. */
export type BenchmarkReason =
  /** A driver or GPU change. */
  | 'HARDWARE_CHANGE'
  | 'REGISTRATION'
  | 'REQUESTED'
  /** A run postponed or lost, asked again. */
  | 'RETRY'
  | 'SCHEDULED';

export type BenchmarkRunState =
  | 'COMPLETED'
  /** No result came in time, or the result that came was refused as untrustworthy (a checksum that does not match the run's nonce, figures its own evidence contradicts); the GPUs kept their listing and the provider was told. */
  | 'EXPIRED'
  /** Asked of the agent; no result yet. */
  | 'PENDING';

/** What was wrong with a transfer answering a deposit request. */
export type DepositIssue =
  /** The transaction failed on chain: nothing moved. */
  | 'FAILED_ON_CHAIN'
  /** It was seen on a fork the cluster dropped and can no longer land: nothing moved (a wallet that sends it again makes a new transfer). */
  | 'NEVER_FINALIZED'
  /** No USDC arrived in the platform's account. */
  | 'NOTHING_ARRIVED'
  /** More arrived than the request asked: what arrived was credited. */
  | 'OVERPAID'
  /** Less arrived than the request asked: what arrived was credited. */
  | 'UNDERPAID'
  /** It names the request's reference but pays another account than the platform's. */
  | 'WRONG_DESTINATION'
  /** It moved another token than USDC. */
  | 'WRONG_MINT';

/** Where a deposit request stands. */
export type DepositState =
  /** Something it brought was credited to the balance. */
  | 'CREDITED'
  /** Its time ran out with nothing credited (a transfer that still arrives is credited, and said to be late). */
  | 'EXPIRED'
  /** A transfer answering it is on chain, not yet finalized and checked. */
  | 'SEEN'
  /** Open: nothing seen on chain yet. */
  | 'WAITING';

/** Where one transaction answering a deposit request stands. */
export type DepositTransferState =
  /** What arrived in the platform's USDC account was credited, once. */
  | 'CREDITED'
  /** Nothing of it could be credited: issue says why. */
  | 'REFUSED'
  /** On chain, not yet finalized and checked. */
  | 'SEEN';

/** The bucket size of earnings history. */
export type EarningsGrouping =
  | 'DAY'
  | 'HOUR'
  | 'MONTH'
  | 'WEEK';

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
  | 'UNAUTHENTICATED'
  /** A service the platform depends on (its database, Redis) is briefly out of reach: nothing was done; retry after extensions.retryAfterSeconds. */
  | 'UNAVAILABLE';

/** Whether customers may rent a GPU, as far as its benchmarks decide. */
export type GpuListing =
  /** Under a threshold in its latest run; listed again when a run passes. */
  | 'DELISTED'
  | 'LISTED'
  /** Waiting for its first scored benchmark. */
  | 'PENDING';

/** Whose side a failed rental's cause is on; only PROVIDER counts against reliability. */
export type JobFailureCause =
  | 'CUSTOMER'
  | 'PLATFORM'
  | 'PROVIDER';

/** A job's state as the agent reports it. */
export type JobState =
  | 'COMPLETED'
  | 'FAILED'
  | 'RUNNING'
  | 'STARTING';

/**
 * Language is a language GPUnex speaks, in the SPA and in every email: EN
 * English, ES Spanish, PT Portuguese, HI Hindi, AR Arabic (right to left).
 */
export type Language =
  | 'AR'
  | 'EN'
  | 'ES'
  | 'HI'
  | 'PT';

/** What a MachineStatusEvent is. */
export type MachineEventKind =
  /** The machine's current state, sent for every machine when a subscription starts (and again when it resumes). */
  | 'INITIAL'
  /** The machine went online or offline: its new state. */
  | 'STATUS'
  /**
   * An online machine's state with a fresh telemetry sample: at most one per
   * machine every few seconds (the server's telemetry interval, 5 s by
   * default), whatever the heartbeat rate.
   */
  | 'TELEMETRY';

export type MachineStatus =
  | 'OFFLINE'
  | 'ONLINE';

/** How the marketplace orders listings. */
export type MarketplaceSort =
  /** Most measured TFLOPS per USDC of the hourly rate first (Listing.performance.tflopsPerDollar); listings that measured no TFLOPS metric last. */
  | 'PERFORMANCE_PER_DOLLAR'
  /** Cheapest first. */
  | 'PRICE'
  /** The documented ranking: price against the model's market, performance, uptime, tier, commitment. */
  | 'RANK';

/** Why a machine is offline. */
export type OfflineReason =
  /** Registered but never heard from since. */
  | 'NEVER_SEEN'
  /** The agent said it was stopping (SIGTERM, maintenance). */
  | 'PLANNED'
  /** Heartbeats stopped without notice (grace period of 3 intervals). */
  | 'UNPLANNED';

/** How a payout is sent. */
export type PayoutKind =
  /** A bank transfer in the finance operator's ISO 20022 batch. */
  | 'BANK'
  /** USDC to a Solana wallet, sent by an admin (no Solana node configured). */
  | 'MANUAL'
  /** USDC on Solana, sent by the platform's node. */
  | 'SOLANA';

/** How often a provider is paid; the earnings period follows it. */
export type PayoutSchedule =
  /** On the first business day of the month, for the month before. */
  | 'MONTHLY'
  /** Every Monday, for the week before (from Monday 00:00 in the provider's time zone). */
  | 'WEEKLY';

/** Where a payout is. */
export type PayoutState =
  /** Not paid: its amount is back in the available balance. */
  | 'FAILED'
  | 'PAID'
  /** Made: its amount left the available balance. */
  | 'PENDING'
  /** Being sent: a signed transaction or a bank file exists. */
  | 'PROCESSING';

/** Why the recommendation is what it is. */
export type PriceReasonCode =
  /** Utilisation from region: gpuHours GPU-hours offered over weeks weeks, utilization rented. */
  | 'DEMAND_REGION'
  /** Fewer than gpuHours GPU-hours offered even worldwide: the curve leans on the prior. */
  | 'DEMAND_THIN'
  /** Enterprise listings rank higher: up to percent % above the market's top. */
  | 'ENTERPRISE_HEADROOM'
  /** Revenue would peak above the market's band: held at limitPerHour. */
  | 'HELD_AT_HIGH'
  /** Revenue would peak below the market's band: held at limitPerHour. */
  | 'HELD_AT_LOW'
  /** Prices from region: gpuCount GPUs of providerCount providers. */
  | 'MARKET_REGION'
  /** region had only gpuCount comparable GPUs of providerCount providers: a wider region was used. */
  | 'MARKET_WIDENED'
  /** The provider has no GPUs of this model: advice before buying. */
  | 'NO_GPUS_OF_MODEL'
  /** No comparable listing anywhere: pricePerHour starts from modelCount other models' prices scaled by reference performance (0: the platform's reference rate). */
  | 'NO_MARKET'
  /** A rate 10 % above the median loses about percent points of utilisation. */
  | 'PRICE_SENSITIVITY'
  /** Expected revenue peaks at pricePerHour, with utilization of hours rented. */
  | 'REVENUE_PEAK'
  /** Supply plentiful in region: gpuCount comparable GPUs, only utilization utilised. */
  | 'SUPPLY_GLUT'
  /** Supply scarce in region: gpuCount comparable GPUs, utilization utilised. */
  | 'SUPPLY_SCARCE';

/** What a recommendation stands on. */
export type PricingBasis =
  /** Comparable listings' prices and how much of their time is rented. */
  | 'MARKET'
  /** No comparable listing anywhere: other models' prices scaled by reference performance. */
  | 'REFERENCE_PERFORMANCE';

/** A step on a provider's way from application to first rental. */
export type ProgressStep =
  /** The provider made an agent token, which installing the agent asks for. */
  | 'AGENT_TOKEN'
  /** The application was submitted. */
  | 'APPLIED'
  /** An admin approved it. */
  | 'APPROVED'
  /** The platform benchmarked a GPU. */
  | 'FIRST_BENCHMARK'
  /** A customer rented a GPU. */
  | 'FIRST_RENTAL'
  /** A GPU passed a benchmark: customers can rent it. */
  | 'LISTED'
  /** An agent installed with a token registered a machine. */
  | 'MACHINE_ONLINE';

export type ProviderTier =
  /** Individuals, small firms, home and office setups. */
  | 'COMMUNITY'
  /** Professional datacenter: UPS mandatory, premium placement, enterprise contracts. */
  | 'ENTERPRISE';

/** A rung of the region ladder recommendations widen along. */
export type RegionLevel =
  /** A city or datacenter region, with its country. */
  | 'CITY'
  | 'CONTINENT'
  | 'COUNTRY'
  | 'WORLD';

/** What would raise the score. */
export type ReliabilityAdvice =
  /** Avoid ending rentals from the provider's side (restarts, failures). */
  | 'AVOID_INTERRUPTIONS'
  /** Declare planned downtime as maintenance ahead: it does not count. */
  | 'DECLARE_MAINTENANCE_AHEAD'
  /** Fix throttling (cooling, power limits) so GPUs hold their baseline. */
  | 'FIX_THROTTLING'
  /** Nothing stands out: keep it up. */
  | 'KEEP_IT_UP'
  /** Keep machines online through the hours the schedule promises. */
  | 'STAY_ONLINE_IN_SCHEDULE';

/** What lowered a component. */
export type ReliabilityEventKind =
  /** A GPU measured below its own baseline, or throttling for heat or power. */
  | 'BENCHMARK_DEGRADED'
  /** A rental ended by the provider's side: a provider-caused failure or the machine going offline. */
  | 'JOB_INTERRUPTED'
  /** Unplanned time offline inside the schedule (maintenance declared ahead is left out). */
  | 'OUTAGE';

/** How a rental ended, for its customer to read. */
export type RentalEnd =
  /** The job ran to its end. */
  | 'COMPLETED'
  /** The platform stopped it as the customer's balance ran out (while it still paid for the stop). */
  | 'FUNDS_RAN_OUT'
  /** The customer's image could not be pulled. */
  | 'IMAGE_NOT_PULLED'
  /** The customer's job failed; exitCode says how. */
  | 'JOB_FAILED'
  /** The provider's machine went offline. */
  | 'MACHINE_OFFLINE'
  /** The job ran out of memory and was killed. */
  | 'OUT_OF_MEMORY'
  /** The platform's own fault. */
  | 'PLATFORM_FAILED'
  /** The provider's host or hardware failed. */
  | 'PROVIDER_FAILED'
  /** The customer stopped it. */
  | 'STOPPED_BY_YOU';

/** Where a rental is. */
export type RentalState =
  /** Ran to its end. */
  | 'COMPLETED'
  /** Ended early; cause says whose side. */
  | 'FAILED'
  /** The machine went offline (or stopped reporting) during the rental. */
  | 'INTERRUPTED'
  | 'RUNNING'
  /** Asked of the agent; not started yet. */
  | 'STARTING'
  /** Stopped by its customer. */
  | 'STOPPED'
  /** Stop asked; the agent has not confirmed. */
  | 'STOPPING';

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
  /** The prepaid balance does not cover it (a rental needs its minimum prepaid time). */
  | 'INSUFFICIENT_FUNDS'
  /** The value is not of the accepted form: an address that is not an email, a control character, an identifier out of its pattern, a choice not offered. */
  | 'INVALID'
  /** The email and password do not match an account. */
  | 'INVALID_CREDENTIALS'
  /** The state of what is acted on does not allow the action: an application's status, a rental that has ended, a job not yet delivered, a payout on its way or paid, bank transfers the platform cannot make. */
  | 'INVALID_STATE'
  /** A time later than the server's clock allows; the sender's clock is ahead. */
  | 'IN_FUTURE'
  /** A number outside its bounds, or not a finite number. */
  | 'OUT_OF_RANGE'
  /** An availability window that overlaps another on the same day. */
  | 'OVERLAP'
  /** GPUs of the customer's own provider, or of a provider tied to the customer (a company email domain or a payout destination they share): a provider cannot rent its own GPUs. */
  | 'OWN_GPUS'
  /** The field is missing or empty. */
  | 'REQUIRED'
  /** The value belongs to something else already: an email to another account, a token name to another active token, a GPU UUID to another machine. */
  | 'TAKEN'
  /** The value has more characters than allowed. */
  | 'TOO_LONG'
  /** A list longer than allowed, or a limit on held things (such as active agent tokens) reached. */
  | 'TOO_MANY'
  /** The value has fewer characters than allowed. */
  | 'TOO_SHORT'
  /** Asked again before a cooldown ended (for example requestBenchmark); the payload says when it may be asked. */
  | 'TOO_SOON'
  /** The GPUs asked for cannot be rented now: another rental took them meanwhile, or they were delisted, went offline or left their schedule. */
  | 'UNAVAILABLE'
  /** A GPU model the catalogue does not list; choose OTHER and name it. */
  | 'UNKNOWN_MODEL'
  /** Not an IANA time zone name such as Europe/Lisbon. */
  | 'UNKNOWN_TIME_ZONE'
  /** The Enterprise tier requires UPS protection. */
  | 'UPS_REQUIRED'
  /** An Ethereum address (0x and 40 hex digits): payouts go over Solana. */
  | 'WALLET_ETHEREUM'
  /** The USDC mint's own address. */
  | 'WALLET_IS_MINT'
  /** A well-known program's id (System, SPL Token, …). */
  | 'WALLET_IS_PROGRAM'
  /** A Solana address with a character outside base58 (letters and digits without 0, O, I and l). */
  | 'WALLET_NOT_BASE58'
  /** The chain says another program owns the account: not a wallet. */
  | 'WALLET_NOT_SYSTEM_OWNED'
  /** 32 bytes no one holds a key for: a token account's derived address, or an address mistyped (Solana addresses carry no checksum). */
  | 'WALLET_OFF_CURVE'
  /** The chain says the account is a token account, not a wallet. */
  | 'WALLET_TOKEN_ACCOUNT'
  /** A Solana address with spaces or line breaks in it (often a copy that took a neighbour along). */
  | 'WALLET_WHITESPACE'
  /** Base58 that is not 32 bytes long: not a whole Solana address. */
  | 'WALLET_WRONG_LENGTH';

export type Weekday =
  | 'FRIDAY'
  | 'MONDAY'
  | 'SATURDAY'
  | 'SUNDAY'
  | 'THURSDAY'
  | 'TUESDAY'
  | 'WEDNESDAY';
