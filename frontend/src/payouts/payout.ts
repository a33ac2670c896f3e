import type { PayoutKind, PayoutSchedule, PayoutState, SetPayoutMethodInput } from '../gql/graphql';
import { chartValue, fromMicros, toMicros } from '../ui/usdc';

// The Payouts tab's rules without React: the states and their tone, what
// the next payout's notice says, the payout method form's input, which
// payouts an admin settles by hand, and the bank file's name.

/** PAYOUT_STATES are the states in the order a payout goes through them (the admins' tabs). */
export const PAYOUT_STATES: readonly PayoutState[] = ['PENDING', 'PROCESSING', 'PAID', 'FAILED'];

/** PAYOUT_SCHEDULES are the schedules the form offers. */
export const PAYOUT_SCHEDULES: readonly PayoutSchedule[] = ['WEEKLY', 'MONTHLY'];

/** payoutStateTone is a state's badge colour: waiting, done or failed. */
export function payoutStateTone(state: PayoutState): 'waiting' | 'done' | 'failed' {
  switch (state) {
    case 'PAID':
      return 'done';
    case 'FAILED':
      return 'failed';
    default:
      return 'waiting';
  }
}

/** NextPayoutLike is what the notice reads of a NextPayout. */
export interface NextPayoutLike {
  dueAt: string;
  thresholdMet: boolean;
  heldUntil?: string | null;
}

/** NextPayoutNote is one sentence of the next payout's notice. */
export type NextPayoutNote = { kind: 'DUE'; at: string } | { kind: 'BELOW_THRESHOLD' } | { kind: 'HELD'; until: string };

/**
 * nextPayoutNotes says, in order, when the next payout is due, whether the
 * balance is below the threshold (a weekly payout waits for it), and
 * whether a new destination holds it (while heldUntil is still ahead).
 */
export function nextPayoutNotes(next: NextPayoutLike, nowMs: number): NextPayoutNote[] {
  const notes: NextPayoutNote[] = [{ kind: 'DUE', at: next.dueAt }];
  if (!next.thresholdMet) notes.push({ kind: 'BELOW_THRESHOLD' });
  if (next.heldUntil && Date.parse(next.heldUntil) > nowMs) notes.push({ kind: 'HELD', until: next.heldUntil });
  return notes;
}

/** Destination is where the form sends payouts. */
export type Destination = 'SOLANA' | 'BANK';

/** destinationOf is the form's starting destination for a method's kind. */
export function destinationOf(kind: PayoutKind | null | undefined): Destination {
  return kind === 'BANK' ? 'BANK' : 'SOLANA';
}

/** MethodDraft is the payout method form as typed. */
export interface MethodDraft {
  schedule: PayoutSchedule;
  destination: Destination;
  solanaAddress: string;
  iban: string;
  bic: string;
  accountHolder: string;
  password: string;
}

/**
 * methodInput is setPayoutMethod's input for a draft: the chosen
 * destination's fields only (trimmed; an IBAN and a BIC without spaces and
 * in capitals, as banks write them), never the other's, and the password
 * as typed. The server checks everything and names each problem's field.
 */
export function methodInput(d: MethodDraft): SetPayoutMethodInput {
  if (d.destination === 'SOLANA') return { schedule: d.schedule, solanaAddress: d.solanaAddress.trim(), password: d.password };
  const compact = (s: string) => s.replace(/\s+/g, '').toUpperCase();
  return { schedule: d.schedule, iban: compact(d.iban), bic: compact(d.bic), accountHolder: d.accountHolder.trim(), password: d.password };
}

/** METHOD_FIELDS are the form's fields, as the server names them (less input.). */
export const METHOD_FIELDS = ['schedule', 'solanaAddress', 'iban', 'bic', 'accountHolder', 'password'] as const;

/** SettleLike is what settleable reads of a payout. */
export interface SettleLike {
  kind: PayoutKind;
  state: PayoutState;
}

/** settleable says whether an admin marks a payout paid or failed by hand: a bank or manual one not yet settled. */
export function settleable(p: SettleLike): boolean {
  return (p.kind === 'BANK' || p.kind === 'MANUAL') && (p.state === 'PENDING' || p.state === 'PROCESSING');
}

/** bankFileName is the bank file's download name: payouts-<YYYY-MM-DD>.xml, the day it was made (UTC). */
export function bankFileName(nowMs: number): string {
  return `payouts-${new Date(nowMs).toISOString().slice(0, 10)}.xml`;
}

/** lastMoment is the instant before an exclusive end: a period ending at next Monday 00:00 ends on Sunday. */
export function lastMoment(end: string): string {
  return new Date(Date.parse(end) - 1).toISOString();
}

/** PayoutWeekLike is what the weekly chart reads of a PayoutWeek. */
export interface PayoutWeekLike {
  start: string;
  paid: string;
  count: number;
}

/**
 * weeksChart is the Payouts tab's chart of what was paid each week: the
 * weeks' starts as seconds (the chart's time axis), one bar per week in
 * USDC (chartValue: the canvas's floats only place the bars; the total
 * written on the page is summed exactly), the total and how many payouts
 * it is.
 */
export function weeksChart(weeks: readonly PayoutWeekLike[]): { xs: number[]; values: number[]; total: string; count: number } {
  let micros = 0n;
  let count = 0;
  for (const w of weeks) {
    micros += toMicros(w.paid);
    count += w.count;
  }
  return { xs: weeks.map((w) => Date.parse(w.start) / 1000), values: weeks.map((w) => chartValue(w.paid)), total: fromMicros(micros), count };
}
