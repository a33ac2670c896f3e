import { useTranslation } from 'react-i18next';
import type { ApplicationStatus, GpuListing, JobFailureCause, ProviderTier, RentalState } from '../gql/graphql';
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

/**
 * RentalStateBadge names a rental's state, and for a failed or interrupted
 * one whose side the cause is on (the customer's, the provider's, the
 * platform's): the customer's Rentals page and the provider's Pricing tab
 * show the same words.
 */
export function RentalStateBadge({ state, cause, testId }: { state: RentalState; cause?: JobFailureCause | null; testId?: string }) {
  const { t } = useTranslation();
  return (
    <span className={`status rental-${state.toLowerCase()}`} data-testid={testId} data-state={state} data-cause={cause ?? ''}>
      {cause ? t('rentalState.withCause', { state: t(`rentalState.${state}`), cause: t(`rentalCause.${cause}`) }) : t(`rentalState.${state}`)}
    </span>
  );
}
