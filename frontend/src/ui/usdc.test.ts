import { describe, expect, it } from 'vitest';
import { compareUsdc, formatUsdc, fromMicros, parseUsdcInput, sameUsdc, toMicros } from './usdc';

describe('parseUsdcInput', () => {
  const cases: { description: string; text: string; want: ReturnType<typeof parseUsdcInput> }[] = [
    { description: 'a whole number gets six decimals', text: '2', want: { ok: true, value: '2.000000' } },
    { description: 'decimals are padded', text: '2.15', want: { ok: true, value: '2.150000' } },
    { description: 'six decimals are kept exactly', text: '0.000001', want: { ok: true, value: '0.000001' } },
    { description: 'a comma is a decimal point', text: ' 1,5 ', want: { ok: true, value: '1.500000' } },
    { description: 'leading zeros go', text: '007.5', want: { ok: true, value: '7.500000' } },
    { description: 'a leading point is a zero', text: '.25', want: { ok: true, value: '0.250000' } },
    { description: 'a large amount stays exact (no float)', text: '123456789012345.123456', want: { ok: true, value: '123456789012345.123456' } },
    { description: 'empty is required', text: '  ', want: { ok: false, problem: 'REQUIRED' } },
    { description: 'seven decimals are too many', text: '1.1234567', want: { ok: false, problem: 'TOO_MANY_DECIMALS' } },
    { description: 'zero is not a price', text: '0.000000', want: { ok: false, problem: 'OUT_OF_RANGE' } },
    { description: 'a sign is not accepted', text: '-1', want: { ok: false, problem: 'INVALID' } },
    { description: 'an exponent is not accepted', text: '1e3', want: { ok: false, problem: 'INVALID' } },
    { description: 'a lone point is not a number', text: '.', want: { ok: false, problem: 'INVALID' } },
    { description: 'two points are not a number', text: '1.2.3', want: { ok: false, problem: 'INVALID' } },
    { description: 'a currency sign is not accepted', text: '$2', want: { ok: false, problem: 'INVALID' } },
  ];
  for (const c of cases) {
    it(c.description, () => expect(parseUsdcInput(c.text)).toEqual(c.want));
  }
});

describe('micro-USDC', () => {
  it('converts both ways exactly', () => {
    expect(toMicros('2.15')).toBe(2_150_000n);
    expect(toMicros('-0.000001')).toBe(-1n);
    expect(fromMicros(2_150_000n)).toBe('2.150000');
    expect(fromMicros(-1n)).toBe('-0.000001');
    expect(fromMicros(toMicros('9007199254740993.000001'))).toBe('9007199254740993.000001');
  });

  it('compares without floats', () => {
    expect(compareUsdc('0.1', '0.100000')).toBe(0);
    expect(compareUsdc('2.000001', '2')).toBe(1);
    expect(compareUsdc('9007199254740993', '9007199254740992')).toBe(1);
    expect(sameUsdc('2.5', '2.500000')).toBe(true);
    expect(sameUsdc('2.5', 'x')).toBe(false);
  });

  it('refuses text that is not an amount', () => {
    expect(() => toMicros('1e3')).toThrow();
  });
});

describe('formatUsdc', () => {
  it('writes six decimals, every amount alike', () => {
    expect(formatUsdc('2.150000', 'en')).toBe('2.150000');
    expect(formatUsdc('0.000125', 'en')).toBe('0.000125');
    expect(formatUsdc('1234.5', 'en')).toBe('1,234.500000');
  });

  it('formats the string exactly, beyond a float\'s precision', () => {
    expect(formatUsdc('9007199254740993.000001', 'en')).toBe('9,007,199,254,740,993.000001');
  });

  it('follows the reader\'s language', () => {
    expect(formatUsdc('1234.5', 'es')).toBe('1234,500000');
    expect(formatUsdc('1234.5', 'pt')).toBe('1.234,500000');
    expect(formatUsdc('2.15', 'ar')).toMatch(/^[\d٠-٩]+[.,٫][\d٠-٩]+$/);
  });
});
