// USDC amounts in the browser tests: the API's decimal strings read as
// micro-USDC (BigInt), so a test compares money exactly, never as floats.

/** micros reads a USDC amount ("-1.5", "25.000000") as micro-USDC. */
export function micros(amount) {
  const negative = amount.startsWith('-');
  const [whole, frac = ''] = amount.replace(/^[-+]/, '').split('.');
  const value = BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, '0').slice(0, 6));
  return negative ? -value : value;
}
