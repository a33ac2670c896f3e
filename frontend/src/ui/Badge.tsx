import { useTranslation } from 'react-i18next';
import type { ApplicationStatus, ProviderTier } from '../gql/graphql';
import './badge.css';

/** StatusBadge names an application's status in a coloured pill. */
export function StatusBadge({ status }: { status: ApplicationStatus }) {
  const { t } = useTranslation();
  return (
    <span className={`status status-${status.toLowerCase()}`} data-testid="application-status" data-status={status}>
      {t(`application.status.${status}`)}
    </span>
  );
}

/** TierBadge names a provider tier. */
export function TierBadge({ tier, testId }: { tier: ProviderTier; testId?: string }) {
  const { t } = useTranslation();
  return (
    <span className={`tier tier-${tier.toLowerCase()}`} data-testid={testId} data-tier={tier}>
      {t(`tiers.${tier}.name`)}
    </span>
  );
}
