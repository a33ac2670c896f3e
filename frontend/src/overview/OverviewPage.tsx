import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useSession } from '../account/session';
import { ProviderProgress } from '../onboarding/ProgressTracker';
import { TierBadge } from '../ui/Badge';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Loading } from '../ui/Loading';
import { machinesOf, summarize } from './fleet';
import { MachineCard } from './MachineCard';
import './overview.css';
import { useFleet } from './useFleet';
import { ForbiddenPage } from '../shell/ForbiddenPage';

/**
 * OverviewPage is the provider dashboard's home: every machine and GPU,
 * status turning Online/Offline live without a reload, the last heartbeat
 * ticking, and telemetry arriving live every few seconds. With no machine
 * yet it explains how to install the agent. A user who is not a provider is
 * told so, and nothing is asked or subscribed for them.
 */
export function OverviewPage() {
  const { user } = useSession();
  if (!user?.roles.includes('PROVIDER')) return <ForbiddenPage role="PROVIDER" />;
  return <ProviderOverview />;
}

/** ProviderOverview is the Overview proper; only it runs useFleet. */
function ProviderOverview() {
  const { t } = useTranslation();
  const fleet = useFleet();

  if (!fleet.loaded && fleet.error) return <ErrorNotice error={fleet.error} onRetry={fleet.refresh} />;
  if (!fleet.loaded) return <Loading />;
  const provider = fleet.provider;
  // The role and the provider record go together; should the server still
  // say there is none, the page says what it says to a non-provider.
  if (!provider) return <ForbiddenPage role="PROVIDER" />;

  const entries = machinesOf(fleet);
  const summary = summarize(entries);
  return (
    <section className="page overview" data-testid="overview-page" data-machines={summary.machines} data-online={summary.online} data-live={fleet.live}>
      <header className="page-head">
        <h1>{t('overview.title')}</h1>
        <p className="status-line">
          <span>{provider.name}</span>
          <TierBadge tier={provider.tier} testId="overview-tier" />
        </p>
        <p className="lead">{t('overview.lead')}</p>
        {entries.length > 0 && (
          <p className="overview-summary" data-testid="overview-summary">
            <span>{t('overview.summaryMachines', { online: summary.online, total: summary.machines })}</span>
            <span>{t('overview.summaryGpus', { gpus: summary.gpus })}</span>
          </p>
        )}
      </header>
      {fleet.error && <ErrorNotice error={fleet.error} />}
      <ProviderProgress />
      {entries.length === 0 ? (
        <EmptyFleet />
      ) : (
        <div className="machines">
          {entries.map((entry) => (
            <MachineCard key={entry.machine.id} entry={entry} />
          ))}
        </div>
      )}
    </section>
  );
}

/** EmptyFleet tells a provider without machines how to bring one online. */
function EmptyFleet() {
  const { t } = useTranslation();
  return (
    <section className="card overview-empty" data-testid="overview-empty">
      <h2>{t('overview.empty.title')}</h2>
      <p>{t('overview.empty.body')}</p>
      <ol className="steps">
        <li>{t('overview.empty.step1')}</li>
        <li>{t('overview.empty.step2')}</li>
        <li>{t('overview.empty.step3')}</li>
      </ol>
      <p className="muted">{t('overview.empty.simulate')}</p>
      <Link to="/provider/tokens" className="button primary" data-testid="overview-empty-tokens">
        {t('overview.empty.tokens')}
      </Link>
    </section>
  );
}
