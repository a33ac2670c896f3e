import type uPlot from 'uplot';

// The pure half of TimeSeriesChart: what uPlot is given, built from the
// chart's props without touching the DOM, so it is unit-tested in Node.

/** ChartSeries is one line: a GPU, a model, a price. */
export interface ChartSeries {
  /** label names the line in the legend and the chart's description. */
  label: string;
  /** values has one entry per x, null where nothing was measured. */
  values: readonly (number | null)[];
  /**
   * step draws the line as steps: each value holds until the next x (a
   * price, set at one time and kept until changed), rather than a slope
   * between samples.
   */
  step?: boolean;
  /**
   * bars draws the series as filled bars, one per x, from zero (a sum per
   * week): the value axis then starts at zero, and the x axis leaves half
   * a step at each end so the first and last bars are whole.
   */
  bars?: boolean;
}

/** ChartPaths are uPlot's path builders a series may ask for, given by the component (this file needs no uPlot at run time). */
export interface ChartPaths {
  stepped?: uPlot.Series.PathBuilder;
  bars?: uPlot.Series.PathBuilder;
}

/**
 * ChartMark is a vertical line at one x that the chart points out (the
 * current and the recommended price on a price curve), named in the legend.
 */
export interface ChartMark {
  /** x is where the line stands, in the x axis's units. */
  x: number;
  /** label names the mark in the legend, already translated. */
  label: string;
}

/** ChartAxis is how an axis is labelled and its ticks are written. */
export interface ChartAxis {
  /** label names the axis, already translated ("Utilization"). */
  label: string;
  /** format writes a tick or a value in the reader's language. */
  format: (value: number) => string;
}

/** XAxis is the horizontal axis. */
export interface XAxis extends Omit<ChartAxis, 'format'> {
  /**
   * time says the x values are seconds since the epoch (ticks fall on whole
   * minutes, hours, days); otherwise they are plain numbers.
   */
  time: boolean;
  /** format writes a tick; by default a time or a number in the reader's language (see xFormat). */
  format?: (value: number) => string;
  /** steps are the tick spacings allowed (whole numbers for counts); uPlot picks otherwise. */
  steps?: readonly number[];
  /**
   * atData puts the ticks on the x values themselves (a bar per week: a
   * tick under each bar, never between two), every second or third one
   * where the width has no room for all.
   */
  atData?: boolean;
}

/** YAxis is the value axis. */
export interface YAxis extends ChartAxis {
  /** range fixes the axis ([0, 100] for a percentage); otherwise it fits the data. */
  range?: readonly [number, number];
}

/** ChartLook is what the page's stylesheet decides: colours and font. */
export interface ChartLook {
  /** colors are the series' strokes, in order, repeating past the end. */
  colors: readonly string[];
  /** text is the colour of tick values and axis labels; grid of grid lines and ticks. */
  text: string;
  grid: string;
  /** font is a CSS font family for the canvas text. */
  font: string;
}

/** ChartLayout is what the chart's place on the page decides. */
export interface ChartLayout {
  width: number;
  height: number;
  /**
   * rtl puts the value axis on the right, where a right-to-left reader
   * starts. Time still runs left to right, as on the sparkline: the
   * convention of charts in Arabic as in the other languages.
   */
  rtl: boolean;
  /** pxRatio is the canvas's pixels per CSS pixel (1 when not given). */
  pxRatio?: number;
  /**
   * measure is how wide a tick's text is drawn, in CSS pixels: the value
   * axis is made as wide as its widest tick ("1,000.000000" needs more room
   * than "90%"). Without it the axis keeps a fixed width.
   */
  measure?: (text: string) => number;
}

/** VALUE_AXIS_SIZE is the value axis's width without a measure, in CSS pixels. */
const VALUE_AXIS_SIZE = 56;

/** TICK_ROOM is the room a tick's text takes on the x axis, in CSS pixels (a date, a time). */
const TICK_ROOM = 64;

/**
 * valueAxisSize fits the value axis to its widest tick text, plus the
 * tick and the gap uPlot draws beside it.
 */
export function valueAxisSize(measure: (text: string) => number): uPlot.Axis.Size {
  return (_u, values) => Math.ceil(Math.max(0, ...(values ?? []).map((v) => measure(v))) + 10 + 5 + 4);
}

/**
 * dataTicks are the x values as ticks, every nth so that each has
 * TICK_ROOM of the width; the last always stays (this week, now).
 */
export function dataTicks(xs: readonly number[], width: number): number[] {
  const room = Math.max(1, Math.floor(width / TICK_ROOM));
  const every = Math.max(1, Math.ceil(xs.length / room));
  return xs.filter((_, i) => (xs.length - 1 - i) % every === 0);
}

/** colorOf is series i's colour. */
export function colorOf(look: ChartLook, i: number): string {
  return look.colors.length > 0 ? (look.colors[i % look.colors.length] ?? 'currentColor') : 'currentColor';
}

/** markColorIndex is mark i's colour, after the series' own, so a mark is never taken for a line. */
export function markColorIndex(seriesCount: number, i: number): number {
  return seriesCount + i;
}

/** MARK_DASH is a mark's dash pattern in CSS pixels: marks are dashed, lines are solid. */
export const MARK_DASH = [6, 4] as const;

/**
 * drawMarks is a uPlot draw hook that strokes each mark as a dashed
 * vertical line across the plot, in its colour (markColorIndex); a mark
 * outside the x range is not drawn. pxRatio is the canvas's pixels per CSS
 * pixel (uPlot draws in device pixels).
 */
export function drawMarks(marks: readonly ChartMark[], look: ChartLook, seriesCount: number, pxRatio: number): (u: uPlot) => void {
  return (u) => {
    const { ctx, bbox } = u;
    ctx.save();
    ctx.lineWidth = 2 * pxRatio;
    ctx.setLineDash(MARK_DASH.map((d) => d * pxRatio));
    marks.forEach((m, i) => {
      const left = u.valToPos(m.x, 'x', true);
      if (!Number.isFinite(left) || left < bbox.left - 0.5 || left > bbox.left + bbox.width + 0.5) return;
      ctx.strokeStyle = colorOf(look, markColorIndex(seriesCount, i));
      ctx.beginPath();
      ctx.moveTo(left, bbox.top);
      ctx.lineTo(left, bbox.top + bbox.height);
      ctx.stroke();
    });
    ctx.restore();
  };
}

/** chartData is uPlot's column layout: the x values, then one column per series. */
export function chartData(xs: readonly number[], series: readonly ChartSeries[]): uPlot.AlignedData {
  return [Array.from(xs), ...series.map((s) => Array.from(s.values))];
}

// uPlot's axis sides: 1 right, 2 bottom, 3 left.
const RIGHT = 1;
const BOTTOM = 2;
const LEFT = 3;

/**
 * chartOptions is the uPlot configuration for a line per series over x and
 * y; series marked step are drawn with paths.stepped and those marked bars with
 * paths.bars (uPlot's builders, given by the component so this file needs
 * no uPlot at run time). uPlot's own legend is off: TimeSeriesChart draws one in the page, so
 * it follows the page's language, direction and styles. marks, when there
 * are any, are drawn over the plot by a draw hook (drawMarks).
 */
export function chartOptions(
  series: readonly ChartSeries[],
  axes: { x: XAxis & ChartAxis; y: YAxis },
  look: ChartLook,
  layout: ChartLayout,
  paths: ChartPaths = {},
  marks: readonly ChartMark[] = [],
): uPlot.Options {
  const bars = series.some((s) => s.bars === true);
  const font = `12px ${look.font}`;
  const labelFont = `600 12px ${look.font}`;
  const axisStyle = { stroke: look.text, font, labelFont, grid: { stroke: look.grid, width: 1 }, ticks: { stroke: look.grid, width: 1 } };
  const { x, y } = axes;
  return {
    width: layout.width,
    height: layout.height,
    legend: { show: false },
    ...(marks.length > 0 && { hooks: { draw: [drawMarks(marks, look, series.length, layout.pxRatio ?? 1)] } }),
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: bars ? { time: x.time, range: barsXRange } : { time: x.time },
      y: y.range ? { range: [y.range[0], y.range[1]] } : bars ? { range: barsYRange } : {},
    },
    axes: [
      {
        ...axisStyle,
        side: BOTTOM,
        label: x.label,
        values: (_u, splits) => splits.map((v) => x.format(v)),
        ...(x.steps && { incrs: Array.from(x.steps) }),
        ...(x.atData && { splits: (u: uPlot) => dataTicks(Array.from(u.data[0]), u.width) }),
      },
      {
        ...axisStyle,
        side: layout.rtl ? RIGHT : LEFT,
        label: y.label,
        size: layout.measure ? valueAxisSize(layout.measure) : VALUE_AXIS_SIZE,
        values: (_u, splits) => splits.map((v) => y.format(v)),
      },
    ],
    series: [
      {},
      ...series.map((s, i) => ({
        label: s.label,
        stroke: colorOf(look, i),
        width: 2,
        points: { show: false },
        ...(s.step && paths.stepped && { paths: paths.stepped }),
        ...(s.bars && paths.bars && { paths: paths.bars, fill: colorOf(look, i), width: 0 }),
      })),
    ],
  };
}

/**
 * barsXRange pads the x range by half the spacing of the xs at each end,
 * so bars centred on the first and last x are drawn whole (one x: a unit
 * either side).
 */
export function barsXRange(u: uPlot, min: number, max: number): uPlot.Range.MinMax {
  const xs = u.data[0];
  const half = xs.length > 1 ? (max - min) / (xs.length - 1) / 2 : 1;
  return [min - half, max + half];
}

/** barsYRange starts the value axis at zero (a bar's length is its value) with a little room above the tallest; 0 to 1 when all are zero. */
export function barsYRange(_u: uPlot, _min: number, max: number): uPlot.Range.MinMax {
  return [0, max > 0 ? max * 1.1 : 1];
}

/** SeriesSummary is what a chart's description says of one series. */
export interface SeriesSummary {
  label: string;
  count: number;
  min: number;
  max: number;
  last: number;
}

/**
 * summarizeSeries gives, for each series with a value, its number of values,
 * lowest, highest and latest: what a screen reader is told instead of the
 * drawing.
 */
export function summarizeSeries(series: readonly ChartSeries[]): SeriesSummary[] {
  const out: SeriesSummary[] = [];
  for (const s of series) {
    const values = s.values.filter((v): v is number => v !== null && Number.isFinite(v));
    const last = values[values.length - 1];
    if (last === undefined) continue;
    out.push({ label: s.label, count: values.length, min: Math.min(...values), max: Math.max(...values), last });
  }
  return out;
}

/** valueAt is a series' value at index, or its latest value when index is null. */
export function valueAt(s: ChartSeries, index: number | null): number | null {
  if (index !== null) return s.values[index] ?? null;
  for (let i = s.values.length - 1; i >= 0; i--) {
    const v = s.values[i];
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/**
 * xFormat is the x axis's tick writer in language lng: the axis's own, or
 * for times the seconds too over a span of up to half an hour (a machine's
 * recent heartbeats), hours and minutes up to two days and the date beyond
 * (an earnings history of months), or for plain numbers Intl's.
 */
export function xFormat(x: XAxis, xs: readonly number[], lng: string): (value: number) => string {
  if (x.format) return x.format;
  if (!x.time) {
    const number = new Intl.NumberFormat(lng, { maximumFractionDigits: 2 });
    return (value) => number.format(value);
  }
  const span = xs.length > 1 ? (xs[xs.length - 1] ?? 0) - (xs[0] ?? 0) : 0;
  const time =
    span <= 30 * 60
      ? new Intl.DateTimeFormat(lng, { hour: 'numeric', minute: '2-digit', second: '2-digit' })
      : span <= 2 * 86_400
        ? new Intl.DateTimeFormat(lng, { hour: 'numeric', minute: '2-digit' })
        : new Intl.DateTimeFormat(lng, { month: 'short', day: 'numeric' });
  return (seconds) => time.format(new Date(seconds * 1000));
}
