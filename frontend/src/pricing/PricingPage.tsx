import { useTranslation } from 'react-i18next';
import { useSession } from '../account/session';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Loading } from '../ui/Loading';
import { MaintenanceCard } from './MaintenanceCard';
import { ModelPriceCard } from './ModelPriceCard';
import { modelRows } from './pricing';
import './pricing.css';
import { ScheduleCard } from './ScheduleCard';
import { usePricing } from './usePricing';
import { ForbiddenPage } from '../shell/ForbiddenPage';

/**
 * PricingPage is the provider's Pricing tab: the hourly rate of each GPU
 * model with its history, the weekly schedule the GPUs are offered in,
 * and the planned maintenance windows. The rentals on the provider's GPUs
 * have a section of their own (providerrentals/).
 */
export function PricingPage() {
  const { user } = useSession();
  if (!user?.roles.includes('PROVIDER')) return <ForbiddenPage role="PROVIDER" />;
  return <ProviderPricing />;
}

function ProviderPricing() {
  const { t } = useTranslation();
  const view = usePricing();
  const { provider } = view;

  if (provider === undefined && view.error) return <ErrorNotice error={view.error} onRetry={view.refresh} />;
  if (provider === undefined) return <Loading />;
  if (provider === null) return <ForbiddenPage role="PROVIDER" />;

  const rows = modelRows(provider.machines, provider.prices);
  return (
    <section className="page pricing" data-testid="pricing-page">
      <header className="page-head">
        <h1>{t('pricing.title')}</h1>
        <p className="lead">{t('pricing.lead')}</p>
      </header>
      {view.error && <ErrorNotice error={view.error} />}

      <section className="card" aria-labelledby="pricing-rates" data-testid="pricing-rates">
        <h2 id="pricing-rates">{t('pricing.rates.title')}</h2>
        <p className="muted">{t('pricing.rates.lead')}</p>
        {rows.length === 0 ? (
          <p data-testid="pricing-no-models">{t('pricing.rates.none')}</p>
        ) : (
          <div className="price-models">
            {rows.map((row) => (
              <ModelPriceCard key={row.key} row={row} />
            ))}
          </div>
        )}
      </section>

      <ScheduleCard schedule={provider.schedule} maintenance={provider.maintenance} />
      <MaintenanceCard schedule={provider.schedule} maintenance={provider.maintenance} machines={provider.machines} />
    </section>
  );
}
