import type { AvailabilityInput, AvailabilityKind, Weekday } from '../gql/graphql';

// The pure half of the schedule editor (ScheduleEditor.tsx): weekly windows
// as edited, the time zones offered, the times a window may start and end,
// and how a window is read. The application form and the Pricing tab edit
// availability with the same editor, under the server's one set of window
// rules (internal/availability), followed here exactly: an end before the
// start runs into the next day (FRIDAY 20:00–08:00 ends Saturday 08:00); an
// end of 00:00 is midnight, the same as 24:00, so nothing of the next day;
// a window that ends when it starts is empty, refused as EMPTY_WINDOW.

/** WEEKDAYS in calendar order, Monday first (ISO 8601). */
export const WEEKDAYS: readonly Weekday[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

/** WindowDraft is one weekly availability window as edited. */
export interface WindowDraft {
  /** key identifies the row for React while rows are added and removed. */
  key: string;
  day: Weekday;
  /** start and end are HH:MM; end is 24:00 at most. */
  start: string;
  end: string;
}

/** ScheduleDraft is an availability as edited: 24/7, or windows in a zone. */
export interface ScheduleDraft {
  kind: AvailabilityKind;
  timeZone: string;
  windows: WindowDraft[];
}

let nextKey = 0;

/** newKey is a fresh React key with prefix (w1, g2, …). */
export function newKey(prefix: string): string {
  nextKey += 1;
  return `${prefix}${nextKey}`;
}

/** browserTimeZone is the IANA zone the browser runs in, or UTC. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/**
 * timeZones lists the IANA zones the browser knows, sorted, always including
 * the ones given (the browser's own, a stored answer) even when the list
 * spells them differently (UTC, Etc/UTC).
 */
export function timeZones(include: readonly string[] = []): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  const all = new Set(zones);
  for (const zone of include) if (zone) all.add(zone);
  if (all.size === 0) all.add('UTC');
  return [...all].sort((a, b) => a.localeCompare(b));
}

/** newWindow is the row added by "Add window": office hours on day. */
export function newWindow(day: Weekday = 'MONDAY'): WindowDraft {
  return { key: newKey('w'), day, start: '09:00', end: '18:00' };
}

/**
 * nextWindow is the row "Add window" appends after windows: the day after
 * the last one with the same hours, so a week is typed Mon, Tue, …
 */
export function nextWindow(windows: readonly WindowDraft[]): WindowDraft {
  const last = windows[windows.length - 1];
  if (!last) return newWindow();
  const w = newWindow(WEEKDAYS[(WEEKDAYS.indexOf(last.day) + 1) % WEEKDAYS.length]);
  return { ...w, start: last.start, end: last.end };
}

/** draftOf is the editable copy of a stored availability. */
export function draftOf(a: { kind: AvailabilityKind; timeZone?: string | null; windows: readonly { day: Weekday; start: string; end: string }[] }): ScheduleDraft {
  return {
    kind: a.kind,
    timeZone: a.timeZone ?? browserTimeZone(),
    windows: a.windows.map((w) => ({ key: newKey('w'), day: w.day, start: w.start, end: w.end })),
  };
}

/** availabilityInput is the mutation's AvailabilityInput for a draft: 24/7 sends neither zone nor windows. */
export function availabilityInput(d: ScheduleDraft): AvailabilityInput {
  if (d.kind !== 'WEEKLY') return { kind: 'ALWAYS' };
  const zone = d.timeZone.trim();
  return { kind: 'WEEKLY', timeZone: zone === '' ? null : zone, windows: d.windows.map((w) => ({ day: w.day, start: w.start, end: w.end })) };
}

/** minutesOf reads HH:MM (24:00 included) as minutes since midnight; null if it is not one. */
export function minutesOf(hhmm: string): number | null {
  const m = /^(\d\d):(\d\d)$/.exec(hhmm);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (min > 59 || h > 24 || (h === 24 && min !== 0)) return null;
  return h * 60 + min;
}

/**
 * crossesMidnight says whether a window runs into the next day: its end is
 * before its start and not midnight (20:00–08:00 runs until 08:00 the day
 * after; 18:00–00:00 and 18:00–24:00 stop at midnight). As the server reads
 * a window (internal/availability SpanOf): it crosses when its span ends
 * past the next midnight.
 */
export function crossesMidnight(w: { start: string; end: string }): boolean {
  const s = minutesOf(w.start);
  const e = minutesOf(w.end);
  if (s === null || e === null) return false;
  return e < s && e !== 0;
}

/**
 * emptyWindow says whether a window ends when it starts (10:00–10:00,
 * 00:00–00:00), which the server refuses as EMPTY_WINDOW on its end; a
 * malformed time is not judged.
 */
export function emptyWindow(w: { start: string; end: string }): boolean {
  const s = minutesOf(w.start);
  const e = minutesOf(w.end);
  return s !== null && s < 24 * 60 && s === e;
}

/**
 * timeChoices are the HH:MM values offered for a window, every 30 minutes.
 * Starts run from 00:00 to 23:30, ends from 00:30 to 24:00 (midnight, which
 * the server also reads from an end of 00:00); an end before the start is
 * on the next day. A stored value off the grid (an end of 00:00) is kept.
 */
export function timeChoices(kind: 'start' | 'end', keep?: string): string[] {
  const out: string[] = [];
  const first = kind === 'start' ? 0 : 30;
  const last = kind === 'start' ? 23 * 60 + 30 : 24 * 60;
  for (let m = first; m <= last; m += 30) out.push(clock(m));
  if (keep && !out.includes(keep)) {
    out.push(keep);
    out.sort();
  }
  return out;
}

/** clock writes minutes since midnight as HH:MM. */
export function clock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** nextDay is the weekday after day. */
export function nextDay(day: Weekday): Weekday {
  return WEEKDAYS[(WEEKDAYS.indexOf(day) + 1) % WEEKDAYS.length] ?? 'MONDAY';
}
