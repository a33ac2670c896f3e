import type { TFunction } from 'i18next';

/**
 * The server explains its tier suggestion with stable codes
 * (TierSuggestion.reasonCodes) beside English sentences (reasons). Known
 * codes are translated; an unknown one shows the server's sentence, so a new
 * rule is never hidden.
 */
const KNOWN_REASONS = {
  NO_UPS: 'noUps',
  NOT_ALWAYS_AVAILABLE: 'notAlways',
  SHORT_COMMITMENT: 'shortCommitment',
  NO_COMPANY: 'noCompany',
  SLOW_NETWORK: 'slowNetwork',
  DATACENTER: 'datacenter',
} as const;

type ReasonKey = (typeof KNOWN_REASONS)[keyof typeof KNOWN_REASONS];

/** tierReasonText translates one reason of a tier suggestion by its code. */
export function tierReasonText(t: TFunction, code: string, english: string): string {
  const key: ReasonKey | undefined = (KNOWN_REASONS as Record<string, ReasonKey>)[code];
  return key ? t(`tierReasons.${key}`) : english;
}
