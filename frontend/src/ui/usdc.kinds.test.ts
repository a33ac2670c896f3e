import { describe, expect, it } from 'vitest';
import { costOf, formatAmount, formatLiveAmount, formatRate } from './usdc';

describe('one rule per kind of amount', () => {
  it('a rate shows as set, two to six decimals', () => {
    expect(formatRate('2.150000', 'en')).toBe('2.15');
    expect(formatRate('0.000125', 'en')).toBe('0.000125');
    expect(formatRate('3', 'es')).toBe('3,00');
  });
  it('an amount is exact, never rounded to the cent, and keeps a debit sign', () => {
    expect(formatAmount('0.025000', 'en')).toBe('0.025');
    expect(formatAmount('-0.030000', 'en')).toBe('-0.03');
    expect(formatAmount('1234.500000', 'en')).toBe('1,234.50');
    expect(formatAmount('1234.500001', 'en')).toBe('1,234.500001');
    expect(formatAmount('100000.5', 'hi')).toBe('1,00,000.50');
  });
  it('a live amount always has six decimals so its digits stay put', () => {
    expect(formatLiveAmount('0.025', 'en')).toBe('0.025000');
    expect(formatLiveAmount('12.3', 'pt')).toBe('12,300000');
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
