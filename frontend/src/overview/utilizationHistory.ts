import type { Gpu } from './fleet';

/**
 * UtilizationHistory is a machine's recent utilisation, one column per GPU,
 * lined up for a chart on a time axis: xs are seconds since the epoch, the
 * latest at the latest sample's time and each earlier one a heartbeat
 * interval before it (the agent sends one sample per heartbeat and no
 * times of its own).
 */
export interface UtilizationHistory {
  xs: number[];
  gpus: { gpu: Gpu; values: (number | null)[] }[];
}

/**
 * utilizationHistory lines up the GPUs' recentUtilizationPct (oldest first)
 * on their latest sample, at the latest telemetry time, intervalSeconds
 * apart, so a GPU with a shorter history (added later, or its agent
 * restarted) starts later on the same axis. GPUs with fewer than two
 * samples draw no line and are left out.
 */
export function utilizationHistory(gpus: readonly Gpu[], intervalSeconds: number): UtilizationHistory {
  const withHistory = gpus.flatMap((gpu) => {
    const samples = gpu.telemetry?.recentUtilizationPct ?? [];
    return samples.length >= 2 && gpu.telemetry ? [{ gpu, samples, at: Date.parse(gpu.telemetry.at) / 1000 }] : [];
  });
  const length = Math.max(0, ...withHistory.map((g) => g.samples.length));
  const latest = Math.max(0, ...withHistory.map((g) => g.at));
  const step = Math.max(1, intervalSeconds);
  const xs = Array.from({ length }, (_, i) => latest - (length - 1 - i) * step);
  return {
    xs,
    gpus: withHistory.map(({ gpu, samples }) => ({
      gpu,
      values: [...Array<null>(length - samples.length).fill(null), ...samples],
    })),
  };
}
