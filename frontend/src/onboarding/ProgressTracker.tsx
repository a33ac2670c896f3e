import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useQuery } from 'urql';
import type { ProgressStep } from '../gql/graphql';
import { useFormat } from '../ui/format';
import { ProviderProgressQuery } from './operations';
import './progress.css';
import { finished, track, type Mark } from './progress';

/** NEXT_LINKS is where the provider takes each step, when a page of ours is where. */
const NEXT_LINKS: Partial<Record<ProgressStep, string>> = {
  AGENT_TOKEN: '/provider/tokens',
  MACHINE_ONLINE: '/provider/tokens',
  LISTED: '/provider/benchmarks',
  FIRST_RENTAL: '/provider/pricing',
};

/**
 * ProgressTracker shows the steps from application to a first rental: the
 * ones done with when, the current one with what to do (and a link to
 * where), the ones ahead. The data-* attributes say the same for tests.
 */
export function ProgressTracker({ marks, testId = 'progress-tracker' }: { marks: readonly Mark[]; testId?: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const steps = track(marks);
  const current = steps.find((s) => s.state === 'current');
  const next = current ? NEXT_LINKS[current.step] : undefined;
  return (
    <section className="card progress-card" aria-labelledby={`${testId}-title`} data-testid={testId} data-current={current?.step ?? ''}>
      <h2 id={`${testId}-title`}>{t('progress.title')}</h2>
      <ol className="progress-steps">
        {steps.map((s) => (
          <li
            key={s.step}
            className={`progress-step progress-${s.state}`}
            data-testid="progress-step"
            data-step={s.step}
            data-state={s.state}
            aria-current={s.state === 'current' ? 'step' : undefined}
          >
            <span className="progress-label">{t(`progress.step.${s.step}`)}</span>
            <span className="progress-when muted small">
              {s.state === 'done' && s.reachedAt ? f.dateTime(s.reachedAt) : t(`progress.state.${s.state}`)}
            </span>
          </li>
        ))}
      </ol>
      {current && (
        <p className="progress-next" data-testid="progress-next">
          {t(`progress.next.${current.step}`)}{' '}
          {next && (
            <Link to={next} data-testid="progress-next-link">
              {t(`progress.go.${current.step}`)}
            </Link>
          )}
        </p>
      )}
    </section>
  );
}

/**
 * ProviderProgress is the signed-in provider's tracker, from the API;
 * nothing once every step is done (unless always), or while it loads.
 */
export function ProviderProgress({ always = false }: { always?: boolean }) {
  // Asked afresh on each page that shows it: a step taken on another page
  // (a token made) is shown at once, never a cached answer from before.
  const [{ data }] = useQuery({ query: ProviderProgressQuery, requestPolicy: 'network-only' });
  const marks = data?.myProvider?.progress;
  if (!marks) return null;
  if (!always && finished(track(marks))) return null;
  return <ProgressTracker marks={marks} />;
}
