import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { isolate } from '../ui/format';
import { TimeSeriesChart } from '../ui/TimeSeriesChart';
import type { Machine } from './fleet';
import { useReadings } from './format';
import { utilizationHistory } from './utilizationHistory';

/**
 * UtilizationChart draws a machine's GPU utilisation over its recent
 * heartbeats on a time axis, a line per GPU, 0–100 %. It shows nothing until a GPU has
 * two samples; the GPU rows' sparklines say "No samples yet" meanwhile.
 */
export function UtilizationChart({ machine }: { machine: Machine }) {
  const { t } = useTranslation();
  const r = useReadings();
  // The GPUs change with each telemetry event, not with each render (a
  // pointer over the chart re-renders it), so neither does the data.
  const history = useMemo(() => utilizationHistory(machine.gpus, machine.heartbeatIntervalSeconds), [machine.gpus, machine.heartbeatIntervalSeconds]);
  const series = useMemo(
    () =>
      history.gpus.map(({ gpu, values }) => ({
        label: t('overview.chart.gpu', { index: gpu.index, name: isolate(gpu.model?.name ?? gpu.name) }),
        values,
      })),
    [history, t],
  );
  if (history.gpus.length === 0) return null;
  return (
    <TimeSeriesChart
      testId="utilization-chart"
      title={t('overview.chart.title')}
      xs={history.xs}
      series={series}
      x={{ time: true, label: t('overview.chart.xLabel') }}
      y={{ label: t('overview.chart.yLabel'), format: r.percent, range: [0, 100] }}
    />
  );
}
