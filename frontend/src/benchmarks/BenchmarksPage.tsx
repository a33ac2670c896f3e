import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useSession } from '../account/session';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Loading } from '../ui/Loading';
import './benchmarks.css';
import { MachineBenchmarksCard } from './MachineBenchmarksCard';
import { standingsOf, summarizeListings } from './standing';
import { useBenchmarks } from './useBenchmarks';
import { ForbiddenPage } from '../shell/ForbiddenPage';

/**
 * BenchmarksPage is the provider's Benchmarks tab: per machine and GPU the
 * listing the benchmarks decided, the score, why a GPU is delisted and what
 * to check, the latest figures against the model's reference, the score's
 * history, the machine's network and storage figures, and a button to run
 * the benchmark again. Every change arrives live over benchmarkUpdated.
 */
export function BenchmarksPage() {
  const { user } = useSession();
  if (!user?.roles.includes('PROVIDER')) return <ForbiddenPage role="PROVIDER" />;
  return <ProviderBenchmarks />;
}

function ProviderBenchmarks() {
  const { t } = useTranslation();
  const view = useBenchmarks();

  if (!view.loaded && view.error) return <ErrorNotice error={view.error} onRetry={view.refresh} />;
  if (!view.loaded) return <Loading />;
  if (!view.providerId) return <ForbiddenPage role="PROVIDER" />;

  const entries = standingsOf(view);
  const summary = summarizeListings(entries);
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
        {summary.gpus > 0 && (
          <p className="benchmarks-summary" data-testid="benchmarks-summary">
            {t('benchmarks.summary', { gpus: summary.gpus, listed: summary.listed, delisted: summary.delisted, pending: summary.pending })}
          </p>
        )}
      </header>
      {view.error && <ErrorNotice error={view.error} />}
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
