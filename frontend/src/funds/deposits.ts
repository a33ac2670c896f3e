import type { DepositFieldsFragment } from '../gql/graphql';

/** Deposit is a deposit request as the Funds page reads it. */
export type Deposit = DepositFieldsFragment;

/**
 * mergeDeposit puts d into list in place of the request with its id, or
 * adds it, keeping the list newest first (ids grow with time).
 */
export function mergeDeposit(list: readonly Deposit[], d: Deposit): Deposit[] {
  const out = list.filter((x) => x.id !== d.id);
  out.push(d);
  return out.sort((a, b) => Number(BigInt(b.id) - BigInt(a.id)));
}

/**
 * openDeposit is the request to show with its QR code: the newest one still
 * waiting or seen (its transfer on its way), or none.
 */
export function openDeposit(list: readonly Deposit[]): Deposit | undefined {
  return list.find((d) => d.state === 'WAITING' || d.state === 'SEEN');
}

/**
 * newlyCredited reports whether next credited something prev had not: a
 * request's credited total grew, so the balance should be read again.
 */
export function newlyCredited(prev: readonly Deposit[], next: Deposit): boolean {
  const before = prev.find((d) => d.id === next.id);
  return BigInt(toMicrosString(next.credited)) > BigInt(toMicrosString(before?.credited ?? '0'));
}

/** toMicrosString turns a USDC decimal string into micro-USDC digits. */
function toMicrosString(usdc: string): string {
  const [whole, frac = ''] = usdc.split('.');
  return `${whole}${frac.padEnd(6, '0').slice(0, 6)}`;
}
