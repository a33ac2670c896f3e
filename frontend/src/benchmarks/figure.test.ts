import { describe, expect, it } from 'vitest';
import { fractionDigits, isMetric, METRIC_ORDER, METRIC_UNITS, minimumMark, ratioBar, resultOf, sortFigures } from './figure';

describe('METRIC_UNITS', () => {
  it('names a unit for every metric, in the order figures are shown', () => {
    expect(METRIC_ORDER[0]).toBe('FP32_TFLOPS');
    expect(METRIC_UNITS.NETWORK_LATENCY_MS).toBe('ms');
    expect(METRIC_UNITS.STORAGE_RANDOM_READ_IOPS).toBe('iops');
    expect(isMetric('MEMORY_READ_GBS')).toBe(true);
    expect(isMetric('toString')).toBe(false);
  });
});

describe('fractionDigits', () => {
  it.each([
    ['small figures keep two decimals', 1.234, 2],
    ['tens keep one', 42.17, 1],
    ['hundreds and up none', 1979.4, 0],
    ['negative figures by their size', -12.5, 1],
  ])('%s', (_name, value, want) => {
    expect(fractionDigits(value)).toBe(want);
  });
});

describe('ratioBar', () => {
  it.each([
    ['an unsupported metric has no bar, never an empty one', { metric: 'TENSOR_BF16_TFLOPS', supported: false, ratio: 0 }, null],
    ['an unmeasured metric has no bar', { metric: 'FP32_TFLOPS', supported: true, ratio: null }, null],
    ['a figure fills its share of the expected', { metric: 'FP32_TFLOPS', supported: true, ratio: 0.62 }, 62],
    ['a figure above the expected fills the bar, no more', { metric: 'FP32_TFLOPS', supported: true, ratio: 1.3 }, 100],
    ['latency is better lower: twice the expected fills half', { metric: 'NETWORK_LATENCY_MS', supported: true, ratio: 2 }, 50],
  ] as const)('%s', (_name, figure, want) => {
    expect(ratioBar(figure)).toBe(want);
  });
});

describe('minimumMark', () => {
  it.each([
    ['the threshold as a share of the expected', { metric: 'FP32_TFLOPS', minimum: 40, expected: 50 }, 80],
    ['no threshold, no mark', { metric: 'FP32_TFLOPS', minimum: null, expected: 50 }, null],
    ['latency: expected over the maximum', { metric: 'NETWORK_LATENCY_MS', minimum: 200, expected: 50 }, 25],
  ] as const)('%s', (_name, figure, want) => {
    expect(minimumMark(figure)).toBe(want);
  });
});

describe('sortFigures', () => {
  it('orders compute, memory, network, storage whatever order the server sent', () => {
    const figures = [
      { metric: 'STORAGE_READ_MBS', supported: true, ratio: 1 },
      { metric: 'MEMORY_READ_GBS', supported: true, ratio: 1 },
      { metric: 'FP32_TFLOPS', supported: true, ratio: 1 },
    ] as const;
    expect(sortFigures(figures).map((f) => f.metric)).toEqual(['FP32_TFLOPS', 'MEMORY_READ_GBS', 'STORAGE_READ_MBS']);
  });
});

describe('resultOf', () => {
  it('says passed, below the minimum, or not supported (whatever passed says then)', () => {
    expect(resultOf({ supported: true, passed: true })).toBe('passed');
    expect(resultOf({ supported: true, passed: false })).toBe('failed');
    expect(resultOf({ supported: false, passed: false })).toBe('unsupported');
    expect(resultOf({ supported: false, passed: true })).toBe('unsupported');
  });
});
