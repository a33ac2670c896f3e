// USDC amounts as the API carries them: exact decimal strings with at most
// six decimals ("2.150000"), never JS numbers. Parsing, comparing and
// formatting work on the digits (BigInt micro-USDC where arithmetic is
// needed); Intl formats the string itself, so no amount goes through a
// float on its way to the screen.

/** USDC_DECIMALS is how many decimals an amount may have (micro-USDC). */
export const USDC_DECIMALS = 6;

/**
 * UsdcProblem is why typed text is not an amount: REQUIRED (empty),
 * INVALID (not a plain decimal number), TOO_MANY_DECIMALS (more than six),
 * OUT_OF_RANGE (zero: a price is more than 0).
 */
export type UsdcProblem = 'REQUIRED' | 'INVALID' | 'TOO_MANY_DECIMALS' | 'OUT_OF_RANGE';

/** UsdcParse is parseUsdcInput's answer: the amount with six decimals, or the problem. */
export type UsdcParse = { ok: true; value: string } | { ok: false; problem: UsdcProblem };

/**
 * parseUsdcInput reads what a user typed as a positive USDC amount: digits,
 * optionally a decimal point (a comma is taken as one) and up to six
 * decimals. The value is normalized to the API's form: no leading zeros,
 * six decimals ("2.5" → "2.500000"). The server checks it again (its cap
 * included) and its userErrors are shown at the field.
 */
export function parseUsdcInput(text: string): UsdcParse {
  const s = text.trim().replace(',', '.');
  if (s === '') return { ok: false, problem: 'REQUIRED' };
  const m = /^(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return { ok: false, problem: 'INVALID' };
  const whole = (m[1] ?? '').replace(/^0+(?=\d)/, '') || '0';
  const frac = m[2] ?? '';
  if (frac.length > USDC_DECIMALS) return { ok: false, problem: 'TOO_MANY_DECIMALS' };
  const value = `${whole}.${frac.padEnd(USDC_DECIMALS, '0')}`;
  if (toMicros(value) <= 0n) return { ok: false, problem: 'OUT_OF_RANGE' };
  return { ok: true, value };
}

/** isUsdc reports whether s is an amount as the API writes it (digits, optional six decimals, optional sign). */
export function isUsdc(s: string): boolean {
  return /^-?\d+(\.\d{1,6})?$/.test(s);
}

/** toMicros is an amount in micro-USDC, exactly (BigInt); "2.15" is 2150000n. */
export function toMicros(s: string): bigint {
  if (!isUsdc(s)) throw new Error(`not a USDC amount: ${JSON.stringify(s)}`);
  const negative = s.startsWith('-');
  const [whole = '0', frac = ''] = (negative ? s.slice(1) : s).split('.');
  const micros = BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(USDC_DECIMALS, '0'));
  return negative ? -micros : micros;
}

/** fromMicros writes micro-USDC as the API does, six decimals ("2.150000"). */
export function fromMicros(micros: bigint): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const whole = abs / 1_000_000n;
  const frac = (abs % 1_000_000n).toString().padStart(USDC_DECIMALS, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}

/** compareUsdc orders two amounts exactly: negative, zero or positive as a is below, equal to or above b. */
export function compareUsdc(a: string, b: string): number {
  const d = toMicros(a) - toMicros(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** sameUsdc reports whether two amounts are equal whatever their decimals ("2.5", "2.500000"). */
export function sameUsdc(a: string, b: string): boolean {
  return isUsdc(a) && isUsdc(b) && toMicros(a) === toMicros(b);
}

/**
 * formatUsdc writes an amount in language lng, the one rule for every USDC
 * figure the SPA shows (a rate, a charge, a balance, a statement line, an
 * estimate that counts every second): always six decimals, USDC's own
 * precision and the ledger's unit, with the reader's digits, separators
 * and grouping ("2.150000", "1,234.500000", "-0.025000", and in Hindi
 * "1,00,000.500000"). Never rounded, so a
 * statement's lines add up on the screen as in the ledger, and a figure
 * that counts keeps its digits in place. Intl is handed the decimal string
 * itself (Intl.NumberFormat formats strings exactly), so no float rounds it.
 */
export function formatUsdc(s: string, lng: string): string {
  const format = new Intl.NumberFormat(lng, { minimumFractionDigits: USDC_DECIMALS, maximumFractionDigits: USDC_DECIMALS });
  // The typing of format() in TypeScript's ES2022 lib predates string input.
  return format.format((isUsdc(s) ? s : '0') as unknown as number);
}

/**
 * chartValue is an amount as a chart's y position. A chart places points
 * on a canvas in floating point anyway; the figures written on the page
 * come from formatUsdc, never from this number.
 */
export function chartValue(s: string): number {
  return isUsdc(s) ? Number(toMicros(s)) / 1_000_000 : Number.NaN;
}

/**
 * formatChartUsdc writes a chart's USDC value (a chartValue, or a y a chart
 * interpolated) by formatUsdc's rule: the nearest micro-USDC, six decimals,
 * so an axis, a legend and the page's figures read alike.
 */
export function formatChartUsdc(v: number, lng: string): string {
  if (!Number.isFinite(v)) return '';
  // Rounded half away from zero, on the magnitude, so -x and x read alike.
  const micros = Math.round(Math.abs(v) * 1_000_000);
  if (!Number.isSafeInteger(micros)) {
    // Beyond 2^53 micro-USDC (9 billion USDC) the float has no micro digits left.
    return new Intl.NumberFormat(lng, { minimumFractionDigits: USDC_DECIMALS, maximumFractionDigits: USDC_DECIMALS }).format(v);
  }
  return formatUsdc(fromMicros(v < 0 ? -BigInt(micros) : BigInt(micros)), lng);
}

/**
 * costOf is what a rental at perHour per GPU on gpus GPUs costs for secs
 * whole seconds, as billing computes it: rate × GPUs × seconds ÷ 3600,
 * rounded down to the micro-USDC, in BigInt.
 */
export function costOf(perHour: string, gpus: number, secs: number): string {
  if (!isUsdc(perHour) || secs <= 0 || gpus <= 0) return fromMicros(0n);
  return fromMicros((toMicros(perHour) * BigInt(gpus) * BigInt(Math.floor(secs))) / 3600n);
}
