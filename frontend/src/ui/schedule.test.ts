import { describe, expect, it } from 'vitest';
import { availabilityInput, crossesMidnight, emptyWindow, nextWindow, timeChoices, type WindowDraft } from './schedule';

const w = (day: WindowDraft['day'], start: string, end: string): WindowDraft => ({ key: 'k', day, start, end });

// The cases follow the server's reading of a window (internal/availability
// SpanOf and CheckWindows): the editor says "ends <next day>" only for a
// window whose span runs past the next midnight, and EMPTY_WINDOW exactly
// where the server refuses one.
describe('crossesMidnight', () => {
  const cases = [
    { description: 'an evening into the morning crosses', window: w('FRIDAY', '20:00', '08:00'), want: true },
    { description: 'Sunday night crosses into Monday', window: w('SUNDAY', '22:00', '02:00'), want: true },
    { description: 'office hours do not', window: w('MONDAY', '09:00', '18:00'), want: false },
    { description: 'an end of 24:00 is midnight of the same day', window: w('MONDAY', '18:00', '24:00'), want: false },
    { description: 'an end of 00:00 is the same midnight, nothing of the next day', window: w('MONDAY', '18:00', '00:00'), want: false },
    { description: 'an end equal to the start is an empty window, not a day', window: w('MONDAY', '10:00', '10:00'), want: false },
    { description: 'a malformed time is not judged', window: w('MONDAY', '25:00', '08:00'), want: false },
  ];
  for (const c of cases) it(c.description, () => expect(crossesMidnight(c.window)).toBe(c.want));
});

describe('emptyWindow', () => {
  const cases = [
    { description: 'an end equal to the start is empty', window: w('MONDAY', '10:00', '10:00'), want: true },
    { description: 'midnight to midnight (00:00–00:00) is empty', window: w('MONDAY', '00:00', '00:00'), want: true },
    { description: 'the whole day 00:00–24:00 is not', window: w('MONDAY', '00:00', '24:00'), want: false },
    { description: 'an overnight window is not', window: w('MONDAY', '20:00', '08:00'), want: false },
    { description: 'a start of 24:00 is malformed, not empty', window: w('MONDAY', '24:00', '24:00'), want: false },
    { description: 'a malformed time is not judged', window: w('MONDAY', '7:00', '7:00'), want: false },
  ];
  for (const c of cases) it(c.description, () => expect(emptyWindow(c.window)).toBe(c.want));
});

describe('timeChoices', () => {
  it('offers starts from 00:00 to 23:30', () => {
    const starts = timeChoices('start');
    expect([starts[0], starts[starts.length - 1]]).toEqual(['00:00', '23:30']);
  });

  it('offers ends from 00:30 to 24:00, midnight once', () => {
    const ends = timeChoices('end');
    expect([ends[0], ends[ends.length - 1]]).toEqual(['00:30', '24:00']);
    expect(ends).not.toContain('00:00');
  });

  it('keeps a stored value off the grid, an end of 00:00 included', () => {
    expect(timeChoices('start', '07:15')).toContain('07:15');
    expect(timeChoices('end', '00:00')[0]).toBe('00:00');
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
    expect(timeChoices('end')).toContain('08:00');
    expect(crossesMidnight(overnight)).toBe(true);
    expect(emptyWindow(overnight)).toBe(false);
    expect(availabilityInput({ kind: 'WEEKLY', timeZone: 'Europe/Lisbon', windows: [overnight] }).windows).toEqual([
      { day: 'MONDAY', start: '20:00', end: '08:00' },
    ]);
  });
});
