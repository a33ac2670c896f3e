import { describe, expect, it } from 'vitest';
import { availabilityInput, crossesMidnight, daySpans, nextWindow, timeChoices, windowMinutes, type WindowDraft } from './schedule';

const w = (day: WindowDraft['day'], start: string, end: string): WindowDraft => ({ key: 'k', day, start, end });

describe('crossesMidnight', () => {
  const cases = [
    { description: 'an evening into the morning crosses', window: w('FRIDAY', '20:00', '08:00'), want: true },
    { description: 'office hours do not', window: w('MONDAY', '09:00', '18:00'), want: false },
    { description: 'an end of 24:00 is midnight of the same day', window: w('MONDAY', '18:00', '24:00'), want: false },
    { description: 'an end at 00:00 after a start crosses to the next midnight', window: w('MONDAY', '18:00', '00:00'), want: true },
    { description: 'an end equal to the start is a whole day, crossing', window: w('MONDAY', '10:00', '10:00'), want: true },
    { description: 'a malformed time is not judged', window: w('MONDAY', '25:00', '08:00'), want: false },
  ];
  for (const c of cases) it(c.description, () => expect(crossesMidnight(c.window)).toBe(c.want));
});

describe('windowMinutes', () => {
  it('counts a crossing window into the next day', () => {
    expect(windowMinutes(w('FRIDAY', '20:00', '08:00'))).toBe(12 * 60);
    expect(windowMinutes(w('MONDAY', '09:00', '18:00'))).toBe(9 * 60);
    expect(windowMinutes(w('MONDAY', '00:00', '24:00'))).toBe(24 * 60);
    expect(windowMinutes(w('MONDAY', '10:00', '10:00'))).toBe(24 * 60);
  });
});

describe('daySpans', () => {
  it('splits Friday 20:00–08:00 into Friday evening and Saturday morning', () => {
    expect(daySpans(w('FRIDAY', '20:00', '08:00'))).toEqual([
      { day: 'FRIDAY', from: 20 * 60, to: 24 * 60 },
      { day: 'SATURDAY', from: 0, to: 8 * 60 },
    ]);
  });

  it('wraps Sunday night into Monday', () => {
    expect(daySpans(w('SUNDAY', '22:00', '02:00'))).toEqual([
      { day: 'SUNDAY', from: 22 * 60, to: 24 * 60 },
      { day: 'MONDAY', from: 0, to: 2 * 60 },
    ]);
  });

  it('keeps a window that does not cross as one span', () => {
    expect(daySpans(w('MONDAY', '09:00', '18:00'))).toEqual([{ day: 'MONDAY', from: 540, to: 1080 }]);
  });

  it('ends at midnight without an empty span on the next day', () => {
    expect(daySpans(w('MONDAY', '18:00', '00:00'))).toEqual([{ day: 'MONDAY', from: 1080, to: 1440 }]);
  });
});

describe('timeChoices', () => {
  it('offers ends from 00:30 to 24:00 when a window may not cross midnight', () => {
    const ends = timeChoices('end');
    expect(ends[0]).toBe('00:30');
    expect(ends[ends.length - 1]).toBe('24:00');
  });

  it('offers an end of 00:00 when a window may cross midnight', () => {
    expect(timeChoices('end', undefined, true)[0]).toBe('00:00');
  });

  it('keeps a stored value off the grid', () => {
    expect(timeChoices('start', '07:15')).toContain('07:15');
  });
});

describe('nextWindow', () => {
  it('continues on the next day with the same hours, Sunday wrapping to Monday', () => {
    const next = nextWindow([w('SUNDAY', '20:00', '08:00')]);
    expect([next.day, next.start, next.end]).toEqual(['MONDAY', '20:00', '08:00']);
  });
});

describe('availabilityInput', () => {
  it('sends 24/7 without zone or windows', () => {
    expect(availabilityInput({ kind: 'ALWAYS', timeZone: 'Europe/Lisbon', windows: [w('MONDAY', '09:00', '18:00')] })).toEqual({ kind: 'ALWAYS' });
  });

  it('sends weekly windows crossing midnight as typed', () => {
    expect(availabilityInput({ kind: 'WEEKLY', timeZone: ' Europe/Lisbon ', windows: [w('FRIDAY', '20:00', '08:00')] })).toEqual({
      kind: 'WEEKLY',
      timeZone: 'Europe/Lisbon',
      windows: [{ day: 'FRIDAY', start: '20:00', end: '08:00' }],
    });
  });
});

describe('an overnight window in the application (issue 11 point 4)', () => {
  it('offers an end of 08:00 after a start of 20:00 and reads it as the next morning', () => {
    const overnight = w('MONDAY', '20:00', '08:00');
    expect(timeChoices('end', undefined, true)).toContain('08:00');
    expect(crossesMidnight(overnight)).toBe(true);
    expect(daySpans(overnight)).toEqual([
      { day: 'MONDAY', from: 20 * 60, to: 24 * 60 },
      { day: 'TUESDAY', from: 0, to: 8 * 60 },
    ]);
    expect(availabilityInput({ kind: 'WEEKLY', timeZone: 'Europe/Lisbon', windows: [overnight] }).windows).toEqual([
      { day: 'MONDAY', start: '20:00', end: '08:00' },
    ]);
  });
});
