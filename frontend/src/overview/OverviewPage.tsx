import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { TierBadge } from '../onboarding/ApplicationDetails';
import { ErrorNotice } from '../shell/ErrorNotice';
import { Loading } from '../shell/Loading';
import { machinesOf, summarize } from './fleet';
import { MachineCard } from './MachineCard';
import './overview.css';
import { TELEMETRY_REFRESH_MS, useFleet } from './useFleet';

/**
 * OverviewPage is the provider dashboard's home: every machine and GPU,
 * status turning Online/Offline live without a reload, the last heartbeat
 * ticking, and telemetry refreshed every TELEMETRY_REFRESH_MS. With no
 * machine yet it explains how to install the agent.
 */
export function OverviewPage() {
  const { t } = useTranslation();
  const fleet = useFleet();
  const now = useNow(1000);

  if (!fleet.loaded && fleet.error) return <ErrorNotice error={fleet.error} onRetry={fleet.refresh} />;
  if (!fleet.loaded) return <Loading />;
  const provider = fleet.provider;
  if (!provider) {
    return (
      <section className="card narrow" data-testid="overview-not-provider">
        <h1>{t('overview.title')}</h1>
        <p>{t('overview.notProvider')}</p>
        <Link to="/provider/application" className="button primary">
          {t('roles.applicationStatus')}
        </Link>
      </section>
    );
  }

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
        <p className="lead">{t('overview.lead', { seconds: TELEMETRY_REFRESH_MS / 1000 })}</p>
        {entries.length > 0 && (
          <p className="overview-summary" data-testid="overview-summary">
            <span>{t('overview.summaryMachines', { online: summary.online, total: summary.machines })}</span>
            <span>{t('overview.summaryGpus', { gpus: summary.gpus })}</span>
          </p>
        )}
      </header>
      {fleet.error && <ErrorNotice error={fleet.error} />}
      {entries.length === 0 ? (
        <EmptyFleet />
      ) : (
        <div className="machines">
          {entries.map((entry) => (
            <MachineCard key={entry.machine.id} entry={entry} now={now} />
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

/** useNow is the current time, updated every intervalMs, for ticking "ago" texts. */
function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}
