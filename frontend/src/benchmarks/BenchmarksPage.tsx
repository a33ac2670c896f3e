import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { useSession } from '../account/session';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Loading } from '../ui/Loading';
import './benchmarks.css';
import { MachineBenchmarksCard } from './MachineBenchmarksCard';
import { ProblemsCard } from './ProblemsCard';
import { problemsOf, standingsOf, summarizeListings, type ListingSummary } from './standing';
import { useBenchmarks } from './useBenchmarks';
import { ForbiddenPage } from '../shell/ForbiddenPage';

/**
 * BenchmarksPage is the provider's Benchmarks tab, what is wrong first: the
 * GPUs counted by listing (the delisted count a link down to them), then
 * every delisted GPU with why and what to check, then per machine and GPU
 * the listing, the score, the latest figures as a strip of pass and fail
 * (the tables against the model's reference and the score's history one
 * tap away), the machine's network and storage figures, and a button to
 * run the benchmark again. Every change arrives live over benchmarkUpdated.
 */
export function BenchmarksPage() {
  const { user } = useSession();
  if (!user?.roles.includes('PROVIDER')) return <ForbiddenPage role="PROVIDER" />;
  return <ProviderBenchmarks />;
}

function ProviderBenchmarks() {
  const { t } = useTranslation();
  const view = useBenchmarks();
  // A link from elsewhere (the Overview's Delisted badge) names a GPU's
  // problem in the hash: shown once the page has it.
  const { hash } = useLocation();
  useEffect(() => {
    if (view.loaded && hash.length > 1) document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
  }, [view.loaded, hash]);

  if (!view.loaded && view.error) return <ErrorNotice error={view.error} onRetry={view.refresh} />;
  if (!view.loaded) return <Loading />;
  if (!view.providerId) return <ForbiddenPage role="PROVIDER" />;

  const entries = standingsOf(view);
  const summary = summarizeListings(entries);
  const problems = problemsOf(entries);
  return (
    <section
      className="page benchmarks"
      data-testid="benchmarks-page"
      data-machines={entries.length}
      data-live={view.live}
      data-listed={summary.listed}
      data-delisted={summary.delisted}
    >
      <header className="page-head">
        <h1>{t('benchmarks.title')}</h1>
        <p className="lead">{t('benchmarks.lead')}</p>
        {summary.gpus > 0 && <ListingCounts summary={summary} />}
      </header>
      {view.error && <ErrorNotice error={view.error} />}
      <ProblemsCard problems={problems} gpuNames={view.gpuNames} />
      {entries.length === 0 ? (
        <section className="card" data-testid="benchmarks-empty">
          <h2>{t('benchmarks.empty.title')}</h2>
          <p>{t('benchmarks.empty.body')}</p>
          <Link to="/provider/overview" className="button">
            {t('benchmarks.empty.overview')}
          </Link>
        </section>
      ) : (
        <div className="bench-machines">
          {entries.map((entry) => (
            <MachineBenchmarksCard key={entry.machine.machineId} entry={entry} gpuNames={view.gpuNames} onRequested={view.dispatch} />
          ))}
        </div>
      )}
    </section>
  );
}

/** ListingCounts is the page's GPUs counted by listing; the delisted count links to the problems card. */
function ListingCounts({ summary }: { summary: ListingSummary }) {
  const { t } = useTranslation();
  return (
    <ul className="bench-counts" data-testid="benchmarks-summary">
      <li>{t('benchmarks.counts.gpus', { n: summary.gpus })}</li>
      <li className="bench-count-listed">{t('benchmarks.counts.listed', { n: summary.listed })}</li>
      <li className="bench-count-delisted">
        {summary.delisted > 0 ? (
          <a href="#bench-problems" data-testid="bench-count-delisted">
            {t('benchmarks.counts.delisted', { n: summary.delisted })}
          </a>
        ) : (
          t('benchmarks.counts.delisted', { n: summary.delisted })
        )}
      </li>
      {summary.pending > 0 && <li>{t('benchmarks.counts.pending', { n: summary.pending })}</li>}
    </ul>
  );
}
