import { describe, expect, it } from 'vitest';
import { costOf, formatChartUsdc, formatUsdc } from './usdc';

describe('one rule for every amount: six decimals, the reader’s separators', () => {
  it('a rate, a charge, a balance and a live figure all show six decimals', () => {
    expect(formatUsdc('2.15', 'en')).toBe('2.150000');
    expect(formatUsdc('0.000125', 'en')).toBe('0.000125');
    expect(formatUsdc('3', 'es')).toBe('3,000000');
    expect(formatUsdc('12.3', 'pt')).toBe('12,300000');
  });
  it('never rounds to the cent and keeps a debit sign', () => {
    expect(formatUsdc('0.025000', 'en')).toBe('0.025000');
    expect(formatUsdc('-0.030000', 'en')).toBe('-0.030000');
    expect(formatUsdc('1234.500001', 'en')).toBe('1,234.500001');
  });
  it('groups by the reader’s convention', () => {
    expect(formatUsdc('1234.5', 'en')).toBe('1,234.500000');
    expect(formatUsdc('100000.5', 'hi')).toBe('1,00,000.500000');
  });
  it('amounts of one kind line up: the same number of decimals whatever the value', () => {
    const decimals = (s: string) => s.split('.')[1]?.length;
    const shown = ['1', '1.5', '0.000001', '1000000', '12.34'].map((a) => formatUsdc(a, 'en'));
    expect(new Set(shown.map(decimals))).toEqual(new Set([6]));
  });
});

describe('formatChartUsdc', () => {
  it('writes a chart value by the same rule, to the nearest micro-USDC', () => {
    expect(formatChartUsdc(2.15, 'en')).toBe('2.150000');
    expect(formatChartUsdc(0.0000005, 'en')).toBe('0.000001');
    expect(formatChartUsdc(-0.0000005, 'en')).toBe('-0.000001');
    expect(formatChartUsdc(-12.5, 'pt')).toBe('-12,500000');
  });
  it('says nothing for a value that is not a number, and never throws on a huge one', () => {
    expect(formatChartUsdc(Number.NaN, 'en')).toBe('');
    expect(formatChartUsdc(Number.POSITIVE_INFINITY, 'en')).toBe('');
    expect(formatChartUsdc(1e300, 'en')).toMatch(/^1(,000)+\.000000$/);
  });
});

describe('costOf', () => {
  const cases: { description: string; perHour: string; gpus: number; secs: number; want: string }[] = [
    { description: 'per second, rounded down to the micro-USDC', perHour: '2.500000', gpus: 2, secs: 5407, want: '7.509722' },
    { description: 'a second at 1.80 on two GPUs is 0.001', perHour: '1.800000', gpus: 2, secs: 1, want: '0.001000' },
    { description: 'nothing before the start', perHour: '2.5', gpus: 1, secs: 0, want: '0.000000' },
    { description: 'a fraction of a second is not billed', perHour: '3.6', gpus: 1, secs: 1.9, want: '0.001000' },
    { description: 'large figures stay exact (BigInt)', perHour: '100', gpus: 8, secs: 10 * 365 * 24 * 3600, want: '70080000.000000' },
  ];
  for (const c of cases) {
    it(c.description, () => expect(costOf(c.perHour, c.gpus, c.secs)).toBe(c.want));
  }
});
