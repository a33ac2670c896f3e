import { describe, expect, it } from 'vitest';
import type { BenchmarkMetric } from '../gql/graphql';
import { guidanceText, guidanceValues, type Guidance, type GuidanceFormat, type Translate } from './guidance';

const fmt: GuidanceFormat = {
  number: (n) => `n(${n})`,
  metric: (m: BenchmarkMetric) => `metric(${m})`,
  inUnit: (m: BenchmarkMetric, n) => `${n} in ${m}`,
};

const strip = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.replace(/[\u2068\u2069]/g, '')]));

function guidance(code: Guidance['code'], params: Record<string, string>, message = 'English message'): Guidance {
  return { code, message, params: Object.entries(params).map(([key, value]) => ({ key, value })) };
}

describe('guidanceValues', () => {
  it.each([
    ['thermal numbers are written in the reader\'s digits', guidance('THERMAL_THROTTLING', { sharePct: '62', maxTemperatureC: '91.5' }), { sharePct: 'n(62)', maxTemperatureC: 'n(91.5)' }],
    [
      'a slow disk names its metric and writes its figures in the metric\'s unit',
      guidance('SLOW_DISK', { metric: 'STORAGE_READ_MBS', measured: '80', minimum: '200' }),
      { metric: 'metric(STORAGE_READ_MBS)', measured: '80 in STORAGE_READ_MBS', minimum: '200 in STORAGE_READ_MBS' },
    ],
    ['a driver error\'s name is kept as sent', guidance('DRIVER_ERROR', { error: 'NVML_ERROR_GPU_IS_LOST' }), { error: 'NVML_ERROR_GPU_IS_LOST' }],
    ['the server\'s "?" for an unknown figure is kept', guidance('THERMAL_THROTTLING', { sharePct: '40', maxTemperatureC: '?' }), { sharePct: 'n(40)', maxTemperatureC: '?' }],
    ['an empty rated power stays empty, not 0', guidance('POWER_THROTTLING', { powerLimitW: '350', ratedW: '', sharePct: '30' }), { powerLimitW: 'n(350)', ratedW: '', sharePct: 'n(30)' }],
    [
      'a metric this SPA does not know is shown as sent, its figures as numbers',
      guidance('CHECK_HARDWARE', { metric: 'FP8_TFLOPS', measured: '10', expected: '20' }),
      { metric: 'FP8_TFLOPS', measured: 'n(10)', expected: 'n(20)' },
    ],
  ])('%s', (_name, g, want) => {
    expect(strip(guidanceValues(g, fmt))).toEqual(want);
  });

  it('isolates every value so it keeps its direction in Arabic', () => {
    expect(guidanceValues(guidance('MEMORY_ERRORS', { uncorrected: '3' }), fmt)).toEqual({ uncorrected: '\u2068n(3)\u2069' });
  });
});

describe('guidanceText', () => {
  // t knows one text, as a locale would, and answers defaultValue otherwise.
  const t: Translate = (key, options) =>
    key === 'benchmarks.guidance.THERMAL_THROTTLING' ? `hot ${String(options.sharePct)} ${String(options.maxTemperatureC)}` : options.defaultValue;

  it('translates a known code with its params', () => {
    const g = guidance('THERMAL_THROTTLING', { sharePct: '62', maxTemperatureC: '91' });
    expect(guidanceText(t, g, fmt).replace(/[\u2068\u2069]/g, '')).toBe('hot n(62) n(91)');
  });

  it('falls back to the server\'s English message for a code without a text', () => {
    const g = guidance('NEW_CODE_FROM_A_NEWER_SERVER' as Guidance['code'], {}, 'Check the thing.');
    expect(guidanceText(t, g, fmt)).toBe('Check the thing.');
  });
});
