// The pure half of what a rental costs on the screen: an exit code's
// meaning, a billed duration in parts, and the estimate shown between
// metering ticks.

import { costOf, toMicros } from '../ui/usdc';

/** ExitMeaning is what an exit code says about how a container ended. */
export type ExitMeaning = 'SUCCESS' | 'KILLED' | 'TERMINATED' | 'ERROR' | 'CANNOT_RUN' | 'OTHER';

/**
 * exitMeaning reads a container's exit code: 0 success; 137 killed
 * (SIGKILL, most often out of memory); 143 stopped (SIGTERM); 1 and 2 a
 * generic error; 125–127 the container or its command could not run;
 * anything else is only its number.
 */
export function exitMeaning(code: number): ExitMeaning {
  switch (code) {
    case 0:
      return 'SUCCESS';
    case 137:
      return 'KILLED';
    case 143:
      return 'TERMINATED';
    case 1:
    case 2:
      return 'ERROR';
    case 125:
    case 126:
    case 127:
      return 'CANNOT_RUN';
    default:
      return 'OTHER';
  }
}

/** durationParts splits whole seconds into hours, minutes and seconds. */
export function durationParts(secs: number): { h: number; m: number; s: number } {
  const n = Math.max(0, Math.floor(secs));
  return { h: Math.floor(n / 3600), m: Math.floor((n % 3600) / 60), s: n % 60 };
}

/** RentalCostFields are what the estimate reads of a rental. */
export interface RentalCostFields {
  pricePerHour: string;
  gpuCount: number;
  startedAt?: string | null;
  endedAt?: string | null;
  billedSeconds: number;
  charged: string;
}

/**
 * estimateNow is what a running rental has cost by now (ms since the
 * epoch), by billing's own rule (rate × GPUs × whole seconds since the
 * start ÷ 3600, rounded down), for the seconds the meter has not billed
 * yet: never below the metered charge, and null once the rental ended or
 * before it started (then the metered figure is the whole story).
 */
export function estimateNow(r: RentalCostFields, now: number): { seconds: number; charged: string } | null {
  if (!r.startedAt || r.endedAt) return null;
  const seconds = Math.floor((now - Date.parse(r.startedAt)) / 1000);
  if (seconds <= r.billedSeconds) return { seconds: r.billedSeconds, charged: r.charged };
  return { seconds, charged: costOf(r.pricePerHour, r.gpuCount, seconds) };
}

/**
 * meterFill is the cost meter's bar: what the rental has been charged as a
 * part of what it could be charged at most, that charge plus the funds
 * left, 0–100 % with one decimal, exactly (BigInt). Full when no funds are
 * left; empty before the first charge.
 */
export function meterFill(charged: string, balance: string): number {
  const spent = toMicros(charged) > 0n ? toMicros(charged) : 0n;
  const left = toMicros(balance) > 0n ? toMicros(balance) : 0n;
  if (spent + left === 0n) return 0;
  return Number((spent * 100_000n) / (spent + left)) / 1000;
}
