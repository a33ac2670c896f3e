import { useTranslation } from 'react-i18next';
import { isolate } from '../ui/format';
import { DelistedWhy } from './DelistedWhy';
import type { Problem } from './standing';
import type { GpuName } from './useBenchmarks';

/**
 * ProblemsCard is what is wrong, first on the Benchmarks tab: every
 * delisted GPU, named by machine and model, with why it is delisted and
 * what to check, and a link down to its panel. The header's delisted count
 * links here.
 */
export function ProblemsCard({ problems, gpuNames }: { problems: readonly Problem[]; gpuNames: ReadonlyMap<string, GpuName> }) {
  const { t } = useTranslation();
  if (problems.length === 0) return null;
  return (
    <section className="card bench-problems" id="bench-problems" aria-labelledby="bench-problems-title" data-testid="bench-problems" data-count={problems.length}>
      <h2 id="bench-problems-title">{t('benchmarks.problems.title', { n: problems.length })}</h2>
      <p className="muted small">{t('benchmarks.problems.lead')}</p>
      <ul className="bench-problem-list">
        {problems.map(({ machineId, hostname, gpu }) => {
          const name = gpuNames.get(gpu.gpuId);
          const label = name ? t('benchmarks.gpu', { index: name.index, name: isolate(name.name) }) : t('benchmarks.gpuUuid', { uuid: isolate(gpu.gpuUuid) });
          return (
            <li key={gpu.gpuId} id={`bench-problem-${gpu.gpuId}`} className="bench-problem" data-testid="bench-problem" data-gpu-id={gpu.gpuId} data-machine-id={machineId}>
              <h3 className="wrap-anywhere">
                <a href={`#bench-gpu-${gpu.gpuId}`} data-testid="bench-problem-link">
                  {t('benchmarks.problems.gpuOn', { gpu: label, hostname: isolate(hostname) })}
                </a>
              </h3>
              <DelistedWhy gpu={gpu} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}
