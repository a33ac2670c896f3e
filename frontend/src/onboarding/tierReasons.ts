import type { TFunction } from 'i18next';

/**
 * The server explains its tier suggestion in English sentences
 * (TierSuggestion.reasons). The ones this version knows are translated; any
 * other is shown as the server wrote it, so a new rule is never hidden.
 */
const KNOWN_REASONS = {
  'no UPS protection (mandatory for Enterprise)': 'noUps',
  'not every GPU entry is available 24/7': 'notAlways',
  'commitment shorter than 12 months': 'shortCommitment',
  'no company named': 'noCompany',
  'upload or download below 1 Gbps': 'slowNetwork',
  'UPS protection, 24/7 availability, a commitment of 12 months or more, a company and at least 1 Gbps both ways: a professional datacenter':
    'datacenter',
} as const;

type ReasonKey = (typeof KNOWN_REASONS)[keyof typeof KNOWN_REASONS];

/** tierReasonText translates one reason of a tier suggestion. */
export function tierReasonText(t: TFunction, reason: string): string {
  const key: ReasonKey | undefined = (KNOWN_REASONS as Record<string, ReasonKey>)[reason];
  return key ? t(`tierReasons.${key}`) : reason;
}
