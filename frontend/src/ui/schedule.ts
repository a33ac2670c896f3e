import type { AvailabilityInput, AvailabilityKind, Weekday } from '../gql/graphql';

// The pure half of the schedule editor (ScheduleEditor.tsx): weekly windows
// as edited, the time zones offered, the times a window may start and end,
// and what a window that crosses midnight covers. The application form and
// the Pricing tab edit availability with the same editor, and both let a
// window cross midnight (FRIDAY 20:00–08:00 runs into Saturday morning), as
// the server's one set of window rules does (internal/availability).

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
 * crossesMidnight says whether a window ends on the next day: its end is
 * not after its start (20:00–08:00 runs from 20:00 to 08:00 the day after).
 * An end of 24:00 is midnight of the same day, never a crossing.
 */
export function crossesMidnight(w: { start: string; end: string }): boolean {
  const s = minutesOf(w.start);
  const e = minutesOf(w.end);
  if (s === null || e === null) return false;
  return e <= s && e !== 24 * 60;
}

/** windowMinutes is how long a window lasts, a crossing of midnight included (20:00–08:00 is 12 h). */
export function windowMinutes(w: { start: string; end: string }): number {
  const s = minutesOf(w.start);
  const e = minutesOf(w.end);
  if (s === null || e === null) return 0;
  return e > s ? e - s : e + 24 * 60 - s;
}

/** DaySpan is the part of a window that falls on one weekday, in minutes since that day's midnight. */
export interface DaySpan {
  day: Weekday;
  from: number;
  to: number;
}

/**
 * daySpans splits a window into the parts on each weekday: FRIDAY
 * 20:00–08:00 is Friday 20:00–24:00 and Saturday 00:00–08:00; SUNDAY
 * 22:00–02:00 wraps to Monday. A window that does not cross is one span.
 */
export function daySpans(w: { day: Weekday; start: string; end: string }): DaySpan[] {
  const s = minutesOf(w.start);
  const e = minutesOf(w.end);
  if (s === null || e === null) return [];
  if (!crossesMidnight(w)) return [{ day: w.day, from: s, to: e }];
  // Crossing: to midnight, then on the next day up to the end (an end
  // equal to the start is a whole day from the start).
  const spans: DaySpan[] = [{ day: w.day, from: s, to: 24 * 60 }];
  if (e > 0) spans.push({ day: nextDay(w.day), from: 0, to: e });
  return spans;
}

/**
 * timeChoices are the HH:MM values offered for a window, every 30 minutes.
 * Starts run from 00:00 to 23:30; ends from 00:30 to 24:00, or, where a
 * window may cross midnight, from 00:00 (an end not after the start is on
 * the next day). A stored value off the grid is kept.
 */
export function timeChoices(kind: 'start' | 'end', keep?: string, crossMidnight = false): string[] {
  const out: string[] = [];
  const first = kind === 'start' || crossMidnight ? 0 : 30;
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
