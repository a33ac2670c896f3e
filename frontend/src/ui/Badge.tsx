import { useTranslation } from 'react-i18next';
import type { ApplicationStatus, GpuListing, ProviderTier } from '../gql/graphql';
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

/** ListingBadge says whether customers may rent a GPU, as its benchmarks decided. */
export function ListingBadge({ listing, testId }: { listing: GpuListing; testId?: string }) {
  const { t } = useTranslation();
  return (
    <span className={`status listing-${listing.toLowerCase()}`} data-testid={testId} data-listing={listing}>
      {t(`benchmarks.listing.${listing}`)}
    </span>
  );
}
