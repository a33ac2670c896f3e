import type { Gpu } from './fleet';

/**
 * UtilizationHistory is a machine's recent utilisation, one column per GPU,
 * lined up for a chart: xs count heartbeats back from the latest (…, -2,
 * -1, 0), as the agent sends one sample per heartbeat and no times.
 */
export interface UtilizationHistory {
  xs: number[];
  gpus: { gpu: Gpu; values: (number | null)[] }[];
}

/**
 * utilizationHistory lines up the GPUs' recentUtilizationPct (oldest first)
 * on their latest sample, so a GPU with a shorter history (added later, or
 * its agent restarted) starts later on the same axis. GPUs with fewer than
 * two samples draw no line and are left out.
 */
export function utilizationHistory(gpus: readonly Gpu[]): UtilizationHistory {
  const withHistory = gpus.flatMap((gpu) => {
    const samples = gpu.telemetry?.recentUtilizationPct ?? [];
    return samples.length >= 2 ? [{ gpu, samples }] : [];
  });
  const length = Math.max(0, ...withHistory.map((g) => g.samples.length));
  const xs = Array.from({ length }, (_, i) => i - (length - 1));
  return {
    xs,
    gpus: withHistory.map(({ gpu, samples }) => ({
      gpu,
      values: [...Array<null>(length - samples.length).fill(null), ...samples],
    })),
  };
}
