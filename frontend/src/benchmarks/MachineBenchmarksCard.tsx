import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation } from 'urql';
import { isolate, useFormat } from '../ui/format';
import { userErrorText } from '../ui/userErrorText';
import { useBenchmarkFormat } from './format';
import { Folded } from '../ui/Folded';
import { FigureStrip } from './FigureStrip';
import { FiguresTable } from './FiguresTable';
import { GpuBenchmarkPanel } from './GpuBenchmarkPanel';
import { RequestBenchmarkMutation } from './operations';
import { runParts, secondsUntil, type MachineStanding, type StandingAction, type StandingEntry } from './standing';
import type { GpuName } from './useBenchmarks';
import { useNow } from '../ui/useNow';

interface MachineBenchmarksCardProps {
  entry: StandingEntry;
  gpuNames: ReadonlyMap<string, GpuName>;
  /** onRequested applies a requestBenchmark answer at once. */
  onRequested: (action: StandingAction) => void;
}

/**
 * MachineBenchmarksCard is one machine: its run state and the button to run
 * the benchmark again, a panel per GPU, and the network and storage figures
 * of its latest run. The data-* attributes say the same for tests.
 */
export function MachineBenchmarksCard({ entry, gpuNames, onRequested }: MachineBenchmarksCardProps) {
  const { t } = useTranslation();
  const f = useFormat();
  const m = entry.machine;
  const run = m.latestRun;
  return (
    <article
      className="card bench-machine"
      aria-labelledby={`bench-machine-${m.machineId}`}
      data-testid="bench-machine"
      data-machine-id={m.machineId}
      data-hostname={m.hostname}
      data-pending={Boolean(m.pendingRun)}
      data-live-events={entry.liveEvents}
    >
      <header className="bench-machine-head">
        <h2 id={`bench-machine-${m.machineId}`} dir="auto" className="wrap-anywhere">
          {m.hostname}
        </h2>
        <RequestButton machine={m} eventSeq={entry.eventSeq} onRequested={onRequested} />
      </header>
      <p className="muted small bench-run-line" data-testid="bench-run-line">
        {run?.finishedAt ? <span>{t('benchmarks.lastRun', { when: f.dateTime(run.finishedAt) })} </span> : <span>{t('benchmarks.noRunYet')} </span>}
        {m.nextScheduledAt && <span>{t('benchmarks.nextRun', { when: f.dateTime(m.nextScheduledAt) })}</span>}
      </p>
      {m.pendingRun && <RunProgress machine={m} gpuNames={gpuNames} />}
      {m.gpus.length === 0 ? (
        <p className="muted">{t('benchmarks.noGpus')}</p>
      ) : (
        <div className="bench-gpus">
          {m.gpus.map((gpu) => (
            <GpuBenchmarkPanel key={gpu.gpuId} gpu={gpu} name={gpuNames.get(gpu.gpuId)} />
          ))}
        </div>
      )}
      <MachineFigures machine={m} />
    </article>
  );
}

/**
 * RunProgress is the pending run part by part, live: each GPU, the network
 * and the storage, measuring until the agent reports the part finished,
 * then how it ended. The agent's word, shown as progress only: the result
 * decides the listing.
 */
function RunProgress({ machine: m, gpuNames }: { machine: MachineStanding; gpuNames: ReadonlyMap<string, GpuName> }) {
  const { t } = useTranslation();
  const parts = runParts(m.gpus, m.pendingRun?.steps ?? [], (id) => gpuNames.get(id)?.index);
  const done = parts.filter((p) => p.outcome !== null).length;
  return (
    <section className="bench-progress" aria-labelledby={`bench-progress-${m.machineId}`} data-testid="bench-progress" data-done={done} data-parts={parts.length}>
      <h3 id={`bench-progress-${m.machineId}`}>{t('benchmarks.progress.title', { done, n: parts.length })}</h3>
      <ol className="bench-steps">
        {parts.map((p) => {
          const name = p.gpuId ? gpuNames.get(p.gpuId) : undefined;
          const label =
            p.part === 'NETWORK'
              ? t('benchmarks.network')
              : p.part === 'STORAGE'
                ? t('benchmarks.storage')
                : name
                  ? t('benchmarks.gpu', { index: name.index, name: isolate(name.name) })
                  : t('benchmarks.gpuUuid', { uuid: isolate(p.gpuUuid ?? '') });
          const state = p.outcome ?? 'RUNNING';
          return (
            <li key={`${p.part}-${p.gpuUuid ?? ''}`} className={`bench-step bench-step-${state.toLowerCase()}`} data-testid="bench-step" data-part={p.part} data-gpu={p.gpuUuid ?? ''} data-state={state}>
              <span className="bench-step-mark" aria-hidden="true" />
              <span dir="auto">{label}</span>
              <span className="muted small">{t(`benchmarks.progress.state.${state}`)}</span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/**
 * MachineFigures is the latest run's network and storage figures: each
 * section's outcome and a strip of pass and fail, the tables one tap away.
 */
function MachineFigures({ machine: m }: { machine: MachineStanding }) {
  const { t } = useTranslation();
  const run = m.latestRun;
  const sections = [
    { key: 'network', title: t('benchmarks.network'), section: run?.network },
    { key: 'storage', title: t('benchmarks.storage'), section: run?.storage },
  ] as const;
  if (!run || sections.every((s) => !s.section)) return null;
  const present = sections.filter((s) => s.section);
  return (
    <section className="bench-machine-figures" data-testid="bench-machine-figures">
      <h3>{t('benchmarks.machineFigures')}</h3>
      {present.map(({ key, title, section }) =>
        section ? (
          <div key={key} className="bench-section" data-testid={`bench-${key}`} data-outcome={section.outcome}>
            <h4>{title}</h4>
            {section.outcome !== 'COMPLETED' && (
              <p className="muted small">
                {t(`benchmarks.outcome.${section.outcome}`)}
                {section.error && (
                  <>
                    {' '}
                    <code dir="ltr" className="wrap-anywhere">
                      {section.error}
                    </code>
                  </>
                )}
              </p>
            )}
            {section.figures.length > 0 && <FigureStrip figures={section.figures} label={title} />}
          </div>
        ) : null,
      )}
      {present.some((s) => (s.section?.figures.length ?? 0) > 0) && (
        <Folded className="bench-details" testId="bench-machine-details" summary={t('benchmarks.machineDetailsSummary')}>
          {() =>
            present.map(({ key, title, section }) =>
              section && section.figures.length > 0 ? <FiguresTable key={key} figures={section.figures} caption={title} /> : null,
            )
          }
        </Folded>
      )}
    </section>
  );
}

/**
 * RequestButton asks for a run now. It is disabled while a run is pending
 * ("Benchmark running…") and, with a countdown ticking every second, until
 * requestAllowedAt; a TOO_SOON (or any other) user error shows beside it.
 */
function RequestButton({ machine: m, eventSeq, onRequested }: { machine: MachineStanding; eventSeq: number; onRequested: (action: StandingAction) => void }) {
  const { t } = useTranslation();
  const fmt = useBenchmarkFormat();
  const [{ fetching }, request] = useMutation(RequestBenchmarkMutation);
  const [errors, setErrors] = useState<string[]>([]);
  const now = useNow(1000);
  const wait = secondsUntil(m.requestAllowedAt, now);
  const running = Boolean(m.pendingRun);

  async function onClick() {
    setErrors([]);
    const askedAfterSeq = eventSeq;
    const res = await request({ input: { machineId: m.machineId } });
    const p = res.data?.requestBenchmark;
    if (res.error) {
      setErrors([t('benchmarks.again.failed')]);
      return;
    }
    if (!p) return;
    onRequested({ type: 'requested', machineId: m.machineId, pendingRun: p.run ?? null, requestAllowedAt: p.requestAllowedAt ?? null, askedAfterSeq });
    setErrors(p.userErrors.map((e) => userErrorText(t, e.field, e.code)));
  }

  const state = running ? 'running' : fetching ? 'asking' : wait > 0 ? 'cooldown' : 'ready';
  return (
    <div className="bench-request" data-testid="bench-request" data-state={state} data-wait={wait}>
      <button type="button" className="button primary small" data-testid="bench-run-again" disabled={state !== 'ready'} onClick={() => void onClick()}>
        {state === 'running' ? t('benchmarks.again.running') : t('benchmarks.again.button')}
      </button>
      {state === 'cooldown' && (
        <span className="muted small" data-testid="bench-countdown" role="timer">
          {t('benchmarks.again.wait', { time: fmt.countdown(wait) })}
        </span>
      )}
      {errors.length > 0 && (
        <p className="bench-request-error small" role="alert" data-testid="bench-request-error">
          {errors.join(' ')}
        </p>
      )}
    </div>
  );
}
