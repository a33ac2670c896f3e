import { describe, expect, it } from 'vitest';
import type uPlot from 'uplot';
import { barsXRange, barsYRange, chartData, chartOptions, colorOf, dataTicks, valueAxisSize, drawMarks, summarizeSeries, valueAt, xFormat, type ChartLook, type ChartSeries } from './chartOptions';

const look: ChartLook = { colors: ['#111', '#222'], text: '#555', grid: '#ddd', font: 'sans-serif' };
const series: ChartSeries[] = [
  { label: 'GPU 0', values: [10, 20, null, 40] },
  { label: 'GPU 1', values: [null, 5, 6, 7] },
  { label: 'GPU 2', values: [1, 1, 1, 1] },
];
const percent = (v: number) => `${v}%`;
const axes = { x: { label: 'Heartbeats ago', time: false, format: (v: number) => String(Math.abs(v)) }, y: { label: 'Utilization', format: percent, range: [0, 100] as const } };

describe('chartOptions', () => {
  const ltr = chartOptions(series, axes, look, { width: 600, height: 200, rtl: false });

  it('draws a line per series in the look\'s colours, repeating them, with uPlot\'s own legend off', () => {
    expect(ltr.series.slice(1).map((s) => [s.label, s.stroke])).toEqual([
      ['GPU 0', '#111'],
      ['GPU 1', '#222'],
      ['GPU 2', '#111'],
    ]);
    expect(ltr.legend?.show).toBe(false);
  });

  it('labels both axes and writes their ticks with the given formatters', () => {
    const [x, y] = ltr.axes ?? [];
    expect(x?.label).toBe('Heartbeats ago');
    expect(y?.label).toBe('Utilization');
    const ticks = (axis: typeof x, splits: number[]) =>
      typeof axis?.values === 'function' ? axis.values({} as never, splits, 0, 0, 0) : undefined;
    expect(ticks(x, [-10, -5, 0])).toEqual(['10', '5', '0']);
    expect(ticks(y, [0, 50, 100])).toEqual(['0%', '50%', '100%']);
  });

  it('fixes the value range when asked and keeps x as plain numbers unless they are times', () => {
    expect(ltr.scales?.y?.range).toEqual([0, 100]);
    expect(ltr.scales?.x?.time).toBe(false);
  });

  it('puts the value axis on the left left to right, on the right right to left; time stays at the bottom', () => {
    const rtl = chartOptions(series, axes, look, { width: 600, height: 200, rtl: true });
    expect(ltr.axes?.map((a) => a.side)).toEqual([2, 3]);
    expect(rtl.axes?.map((a) => a.side)).toEqual([2, 1]);
  });

  it('keeps ticks on the steps it is given', () => {
    const stepped = chartOptions(series, { ...axes, x: { ...axes.x, steps: [1, 5] } }, look, { width: 600, height: 200, rtl: false });
    expect(stepped.axes?.[0]?.incrs).toEqual([1, 5]);
  });
});

describe('marks', () => {
  // A stand-in for uPlot's instance: x maps 0–10 onto the plot's 100 px
  // from 50, and the canvas context records what is stroked.
  function fakePlot() {
    const strokes: { x: number; color: string; dash: number[]; width: number }[] = [];
    let at = 0;
    let dash: number[] = [];
    const ctx = {
      strokeStyle: '',
      lineWidth: 0,
      save: () => {},
      restore: () => {},
      setLineDash: (d: number[]) => {
        dash = d;
      },
      beginPath: () => {},
      moveTo: (x: number) => {
        at = x;
      },
      lineTo: () => {},
      stroke: () => strokes.push({ x: at, color: ctx.strokeStyle, dash, width: ctx.lineWidth }),
    };
    const u = { ctx, bbox: { left: 50, top: 0, width: 100, height: 80 }, valToPos: (v: number) => 50 + v * 10 };
    return { u: u as unknown as uPlot, strokes };
  }

  it('adds no draw hook without marks', () => {
    expect(chartOptions(series, axes, look, { width: 600, height: 200, rtl: false }).hooks).toBeUndefined();
  });

  it('draws each mark as a dashed vertical line in a colour after the series\' own, skipping one off the plot', () => {
    const { u, strokes } = fakePlot();
    const marks = [
      { x: 2.5, label: 'Recommended' },
      { x: 4, label: 'Current' },
      { x: 40, label: 'Off the plot' },
    ];
    const options = chartOptions(series.slice(0, 1), axes, { ...look, colors: ['#111', '#222', '#333'] }, { width: 600, height: 200, rtl: false, pxRatio: 2 }, undefined, marks);
    expect(options.hooks?.draw).toHaveLength(1);
    options.hooks?.draw?.[0]?.(u);
    expect(strokes).toEqual([
      { x: 75, color: '#222', dash: [12, 8], width: 4 },
      { x: 90, color: '#333', dash: [12, 8], width: 4 },
    ]);
  });

  it('is a hook of its own too', () => {
    const { u, strokes } = fakePlot();
    drawMarks([{ x: 0, label: 'at the edge' }], look, 2, 1)(u);
    expect(strokes.map((s) => [s.x, s.color])).toEqual([[50, '#111']]);
  });
});

describe('chartData', () => {
  it('is the x column then one column per series', () => {
    expect(chartData([-3, -2, -1, 0], series.slice(0, 2))).toEqual([
      [-3, -2, -1, 0],
      [10, 20, null, 40],
      [null, 5, 6, 7],
    ]);
  });
});

describe('colorOf', () => {
  it('falls back to the text colour without a palette', () => {
    expect(colorOf({ ...look, colors: [] }, 3)).toBe('currentColor');
  });
});

describe('summarizeSeries and valueAt', () => {
  it('give each series\' count, range and latest value, skipping gaps and series without values', () => {
    expect(summarizeSeries([...series, { label: 'empty', values: [null, null] }])).toEqual([
      { label: 'GPU 0', count: 3, min: 10, max: 40, last: 40 },
      { label: 'GPU 1', count: 3, min: 5, max: 7, last: 7 },
      { label: 'GPU 2', count: 4, min: 1, max: 1, last: 1 },
    ]);
  });

  it('read the value under the pointer, or the latest one without a pointer', () => {
    expect(valueAt({ label: 'a', values: [1, 2, null] }, null)).toBe(2);
    expect(valueAt({ label: 'a', values: [1, 2, null] }, 2)).toBeNull();
    expect(valueAt({ label: 'a', values: [1, 2, null] }, 0)).toBe(1);
  });
});

describe('xFormat', () => {
  const noon = Date.UTC(2026, 10, 3, 12, 30) / 1000;

  it('writes times of day over a short span, in the reader\'s language and digits', () => {
    const format = xFormat({ label: 'Time', time: true }, [noon - 3600, noon], 'en');
    expect(format(noon)).toBe(new Intl.DateTimeFormat('en', { hour: 'numeric', minute: '2-digit' }).format(new Date(noon * 1000)));
    const arabic = xFormat({ label: 'Time', time: true }, [noon - 3600, noon], 'ar');
    expect(arabic(noon)).toBe(new Intl.DateTimeFormat('ar', { hour: 'numeric', minute: '2-digit' }).format(new Date(noon * 1000)));
    expect(arabic(noon)).not.toBe(format(noon));
  });

  it('writes the seconds too over a span of up to half an hour (recent heartbeats)', () => {
    const format = xFormat({ label: 'Time', time: true }, [noon - 60, noon], 'en');
    expect(format(noon + 7)).toBe(new Intl.DateTimeFormat('en', { hour: 'numeric', minute: '2-digit', second: '2-digit' }).format(new Date((noon + 7) * 1000)));
    expect(format(noon + 7)).not.toBe(format(noon + 8));
  });

  it('writes dates over a span of more than two days', () => {
    const format = xFormat({ label: 'Day', time: true }, [noon - 30 * 86_400, noon], 'es');
    expect(format(noon)).toBe(new Intl.DateTimeFormat('es', { month: 'short', day: 'numeric' }).format(new Date(noon * 1000)));
  });

  it('writes plain numbers with Intl, or with the axis\'s own formatter', () => {
    expect(xFormat({ label: 'n', time: false }, [], 'en')(12345.678)).toBe('12,345.68');
    expect(xFormat({ label: 'n', time: false, format: () => 'own' }, [], 'en')(1)).toBe('own');
  });
});

describe('bars', () => {
  const weeks = [0, 604_800, 1_209_600];
  const paid: ChartSeries[] = [{ label: 'Paid', values: [0, 25, 30], bars: true }];
  const bars = (() => null) as unknown as uPlot.Series.PathBuilder;
  const options = chartOptions(paid, { x: { label: 'Week', time: true, format: String }, y: { label: 'USDC', format: String } }, look, { width: 600, height: 200, rtl: false }, { bars });
  const plot = { data: [weeks] } as unknown as uPlot;

  it('fills each series marked bars with its colour, drawn by the bars builder', () => {
    expect(options.series[1]).toMatchObject({ label: 'Paid', paths: bars, fill: '#111', stroke: '#111' });
  });

  it('keeps the first and last bars whole: half a step more at each end of x', () => {
    const range = options.scales?.x?.range as (u: uPlot, min: number, max: number) => uPlot.Range.MinMax;
    expect(range(plot, 0, 1_209_600)).toEqual([-302_400, 1_512_000]);
    expect(barsXRange({ data: [[5]] } as unknown as uPlot, 5, 5)).toEqual([4, 6]);
  });

  it('starts the value axis at zero, so a bar\'s length is its value', () => {
    const range = options.scales?.y?.range as (u: uPlot, min: number, max: number) => uPlot.Range.MinMax;
    expect(range(plot, 25, 30)).toEqual([0, 33]);
    expect(barsYRange(plot, 0, 0)).toEqual([0, 1]);
  });

  it('leaves lines alone: no bars, no padded ranges', () => {
    expect(linesOnly().scales?.x?.range).toBeUndefined();
  });
});

function linesOnly() {
  return chartOptions(series, { ...axes, y: { label: 'v', format: percent } }, look, { width: 600, height: 200, rtl: false }, {});
}

describe('axes that fit', () => {
  it('makes the value axis as wide as its widest tick', () => {
    const size = valueAxisSize((text) => text.length * 7) as (u: uPlot, values: string[], axisIdx: number, cycleNum: number) => number;
    expect(size({} as uPlot, ['0.000000', '1,000.000000'], 1, 0)).toBe(12 * 7 + 19);
    expect(size({} as uPlot, ['0%', '50%', '100%'], 1, 0)).toBe(4 * 7 + 19);
    const options = chartOptions(series, axes, look, { width: 600, height: 200, rtl: false, measure: (text) => text.length });
    expect(typeof options.axes?.[1]?.size).toBe('function');
    expect(chartOptions(series, axes, look, { width: 600, height: 200, rtl: false }).axes?.[1]?.size).toBe(56);
  });

  it('puts a tick under each bar, thinned to fit, keeping the last', () => {
    const weeks = Array.from({ length: 12 }, (_, i) => i * 604_800);
    expect(dataTicks(weeks, 1000)).toEqual(weeks);
    // 300 px has room for 4 ticks: every third week, ending at this week.
    expect(dataTicks(weeks, 300)).toEqual([2, 5, 8, 11].map((i) => i * 604_800));
    expect(dataTicks([], 300)).toEqual([]);
  });
});
