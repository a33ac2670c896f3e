import { useTranslation } from 'react-i18next';
import { useReadings } from './format';

const WIDTH = 96;
const HEIGHT = 32;
const PAD = 2;

/**
 * sparklinePoints places percentages (0–100, oldest first) evenly across
 * the box, 100 % at the top; values outside 0–100 are clamped.
 */
export function sparklinePoints(values: readonly number[], width = WIDTH, height = HEIGHT, pad = PAD): [number, number][] {
  const n = values.length;
  const step = n > 1 ? (width - 2 * pad) / (n - 1) : 0;
  return values.map((v, i) => {
    const clamped = Math.min(100, Math.max(0, Number.isFinite(v) ? v : 0));
    return [round(pad + i * step), round(pad + (1 - clamped / 100) * (height - 2 * pad))];
  });
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

/**
 * Sparkline draws a GPU's recent utilisation as a small inline SVG: a line
 * over a faint area, the latest sample marked. Time runs left to right in
 * every language, as on the axis of a chart. Screen readers get a sentence
 * with the range and the latest value instead of the drawing.
 */
export function Sparkline({ values }: { values: readonly number[] }) {
  const { t } = useTranslation();
  const r = useReadings();
  if (values.length < 2) {
    return (
      <span className="sparkline-empty muted small" data-testid="gpu-sparkline" data-points={values.length}>
        {t('overview.noHistory')}
      </span>
    );
  }
  const points = sparklinePoints(values);
  const line = points.map(([x, y]) => `${x},${y}`).join(' ');
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const base = HEIGHT - PAD;
  const area = `M${first[0]},${base} ${points.map(([x, y]) => `L${x},${y}`).join(' ')} L${last[0]},${base} Z`;
  const label = t('overview.sparkline', {
    samples: values.length,
    min: r.percent(Math.min(...values)),
    max: r.percent(Math.max(...values)),
    last: r.percent(values[values.length - 1]!),
  });
  return (
    <svg
      className="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={label}
      data-testid="gpu-sparkline"
      data-points={values.length}
    >
      <title>{label}</title>
      <line className="sparkline-base" x1={PAD} x2={WIDTH - PAD} y1={base} y2={base} />
      <path className="sparkline-area" d={area} />
      <polyline className="sparkline-line" points={line} />
      <circle className="sparkline-dot" cx={last[0]} cy={last[1]} r={2.5} />
    </svg>
  );
}
