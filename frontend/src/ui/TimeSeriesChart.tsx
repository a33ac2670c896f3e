import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './chart.css';
import {
  chartData,
  chartOptions,
  markColorIndex,
  summarizeSeries,
  valueAt,
  xFormat,
  type ChartAxis,
  type ChartLook,
  type ChartMark,
  type ChartSeries,
  type XAxis,
  type YAxis,
} from './chartOptions';
import { isolate, useFormat } from './format';

// The chart library is uPlot: about 20 kB gzipped with no dependencies
// (Recharts brings Redux, Immer and D3 along, several times that; Chart.js
// is about three times the size), built for time series, which is what the
// Benchmarks, Pricing, Earnings and Performance tabs draw, and fast on long
// histories since it draws on a canvas. It knows nothing of React, so
// nothing ties it to a React version: this component is the whole binding.
// What a canvas cannot do is done in the page: the caption, the legend
// (in the reader's language and direction) and the description a screen
// reader gets instead of the drawing.

/** CHART_COLORS is how many --chart-N colours ui/chart.css defines. */
const CHART_COLORS = 6;

/** TimeSeriesChartProps are a chart's data and how to write it. */
export interface TimeSeriesChartProps {
  /** title is the chart's caption and accessible name, already translated. */
  title: string;
  /**
   * xs are the x values, ascending: seconds since the epoch when x.time.
   * Keep xs and series the same arrays while the data is (useMemo): new
   * arrays hand the chart new data, and it redraws.
   */
  xs: readonly number[];
  /** series are the lines, each with one value (or null) per x. */
  series: readonly ChartSeries[];
  x: XAxis;
  y: YAxis;
  /** height of the plot in CSS pixels; the width follows the container. */
  height?: number;
  testId?: string;
  /**
   * marks are x values the chart points out with a dashed vertical line
   * each, named in the legend with their x (a price curve's current and
   * recommended price). Keep the array the same while they are (useMemo).
   */
  marks?: readonly ChartMark[];
  /**
   * at is the index whose values the legend gives while the pointer is not
   * over the chart; by default each series' latest value. A curve over
   * price has no "latest": it rests at the price that matters.
   */
  at?: number | null;
}

const NO_MARKS: readonly ChartMark[] = [];

/**
 * TimeSeriesChart draws one line per series over x, with axis labels and
 * ticks in the reader's language, the value axis on the reader's starting
 * side, and a legend that gives each series' latest value (or its value at
 * index at), or its value under the pointer, and names the marks. Screen
 * readers get each series' range and latest value, and each mark's x.
 */
export function TimeSeriesChart({ title, xs, series, x, y, height = 200, testId, marks = NO_MARKS, at = null }: TimeSeriesChartProps) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const lng = i18n.language;
  const rtl = i18n.dir(lng) === 'rtl';
  const formatX = xFormat(x, xs, lng);
  const [hovered, setHovered] = useState<number | null>(null);
  const plot = useUplot({ xs, series, x: { ...x, format: formatX }, y, lng, rtl, height, marks, onHover: setHovered });

  const seriesText = summarizeSeries(series)
    .map((s) =>
      t('chart.series', {
        label: isolate(s.label),
        samples: f.number(s.count),
        min: isolate(y.format(s.min)),
        max: isolate(y.format(s.max)),
        last: isolate(y.format(s.last)),
      }),
    )
    .join(' ');
  const marksText = marks.map((m) => t('chart.at', { label: m.label, value: isolate(formatX(m.x)) })).join(' ');
  const shown = hovered ?? at;
  const shownX = shown === null ? undefined : xs[shown];

  return (
    <figure className="chart" data-testid={testId} data-series={series.length} data-points={xs.length} data-y-range={y.range ? y.range.join(' ') : ''}>
      <figcaption className="chart-title">{title}</figcaption>
      <div ref={plot} className="chart-plot" role="img" aria-label={t('chart.description', { title, series: marksText ? `${seriesText} ${marksText}` : seriesText })} data-testid="chart-plot" />
      <p className="chart-at muted small" data-testid="chart-at">
        {shownX === undefined ? t('chart.latest') : t('chart.at', { label: x.label, value: isolate(formatX(shownX)) })}
      </p>
      <ul className="chart-legend">
        {series.map((s, i) => (
          <LegendItem key={`${i}-${s.label}`} series={s} color={i % CHART_COLORS} value={valueAt(s, shown)} format={y.format} />
        ))}
        {marks.map((m, i) => (
          <li key={`mark-${i}-${m.label}`} className="chart-legend-item" data-testid="chart-mark" data-label={m.label} data-x={m.x}>
            <span className="chart-swatch chart-swatch-mark" style={{ borderColor: `var(--chart-${(markColorIndex(series.length, i) % CHART_COLORS) + 1})` }} aria-hidden="true" />
            <span dir="auto">{m.label}</span>
            <span className="chart-value">{formatX(m.x)}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** LegendItem is one series' colour, label and value. */
function LegendItem({ series, color, value, format }: { series: ChartSeries; color: number; value: number | null; format: (v: number) => string }) {
  const { t } = useTranslation();
  return (
    <li className="chart-legend-item" data-testid="chart-legend-item" data-label={series.label} data-value={value ?? ''}>
      <span className="chart-swatch" style={{ background: `var(--chart-${color + 1})` }} aria-hidden="true" />
      <span dir="auto">{series.label}</span>
      <span className="chart-value">{value === null ? t('chart.noValue') : format(value)}</span>
    </li>
  );
}

interface PlotInput {
  xs: readonly number[];
  series: readonly ChartSeries[];
  x: XAxis & ChartAxis;
  y: YAxis;
  lng: string;
  rtl: boolean;
  height: number;
  marks: readonly ChartMark[];
  /** onHover gets the index under the pointer, null when there is none. */
  onHover: (index: number | null) => void;
}

/**
 * useUplot keeps a uPlot instance in the returned element. The instance is
 * made again only when what its options are built from changes in kind (the
 * language, the direction, the labels, the number of series, the height);
 * new data is handed to the one there is, and a change of the element's
 * width resizes it.
 */
function useUplot(input: PlotInput) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const latest = useRef(input);
  useEffect(() => {
    latest.current = input;
  });

  const { xs, series, x, y, lng, rtl, height, marks } = input;
  // Marks are drawn by a hook the options carry, so new marks make a new
  // instance (a handful of points: cheap).
  const shape = JSON.stringify([lng, rtl, height, x.label, x.time, x.steps, x.atData, y.label, y.range, series.map((s) => [s.label, s.step === true, s.bars === true]), marks]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const now = latest.current;
    const paths = { stepped: uPlot.paths.stepped?.({ align: 1 }), bars: uPlot.paths.bars?.({ size: [0.6, 48] }) };
    const look = lookOf(el);
    const options = chartOptions(now.series, { x: now.x, y: now.y }, look, { width: el.clientWidth, height: now.height, rtl: now.rtl, pxRatio: uPlot.pxRatio, measure: measurer(look.font) }, paths, now.marks);
    options.hooks = { ...options.hooks, setCursor: [(u) => latest.current.onHover(u.cursor.idx ?? null)] };
    const u = new uPlot(options, chartData(now.xs, now.series), el);
    chart.current = u;
    const resize = new ResizeObserver(() => u.setSize({ width: el.clientWidth, height: now.height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      chart.current = null;
    };
  }, [shape]);

  useEffect(() => {
    chart.current?.setData(chartData(xs, series));
  }, [xs, series]);

  return box;
}

/** measurer measures a tick's text as the chart draws it (12 px in the page's font), in CSS pixels. */
function measurer(font: string): ((text: string) => number) | undefined {
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) return undefined;
  ctx.font = `12px ${font}`;
  return (text) => ctx.measureText(text).width;
}

/** lookOf reads the chart's colours and font from the page's stylesheet. */
function lookOf(el: HTMLElement): ChartLook {
  const style = getComputedStyle(el);
  const prop = (name: string) => style.getPropertyValue(name).trim();
  return {
    colors: Array.from({ length: CHART_COLORS }, (_, i) => prop(`--chart-${i + 1}`)).filter(Boolean),
    text: prop('--muted') || 'gray',
    grid: prop('--border') || 'lightgray',
    font: style.fontFamily,
  };
}
