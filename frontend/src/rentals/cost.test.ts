import { describe, expect, it } from 'vitest';
import { durationParts, estimateNow, exitMeaning, type ExitMeaning } from './cost';

describe('exitMeaning', () => {
  const cases: { code: number; want: ExitMeaning; description: string }[] = [
    { code: 0, want: 'SUCCESS', description: '0 is success' },
    { code: 137, want: 'KILLED', description: '137 is SIGKILL, most often out of memory' },
    { code: 143, want: 'TERMINATED', description: '143 is SIGTERM, a stop' },
    { code: 1, want: 'ERROR', description: '1 is a generic error' },
    { code: 2, want: 'ERROR', description: '2 is a generic error (misuse)' },
    { code: 125, want: 'CANNOT_RUN', description: '125: the container could not run' },
    { code: 126, want: 'CANNOT_RUN', description: '126: the command cannot be executed' },
    { code: 127, want: 'CANNOT_RUN', description: '127: the command was not found' },
    { code: 3, want: 'OTHER', description: 'others are their number' },
    { code: 139, want: 'OTHER', description: 'a segfault is only its number' },
  ];
  for (const c of cases) {
    it(c.description, () => expect(exitMeaning(c.code)).toBe(c.want));
  }
});

describe('durationParts', () => {
  it('splits seconds', () => {
    expect(durationParts(3725)).toEqual({ h: 1, m: 2, s: 5 });
    expect(durationParts(59.9)).toEqual({ h: 0, m: 0, s: 59 });
    expect(durationParts(-4)).toEqual({ h: 0, m: 0, s: 0 });
  });
});

describe('estimateNow', () => {
  const start = Date.parse('2026-12-04T10:00:00Z');
  const running = { pricePerHour: '1.800000', gpuCount: 2, startedAt: '2026-12-04T10:00:00Z', endedAt: null, billedSeconds: 30, charged: '0.030000' };
  it('counts the seconds the meter has not billed yet by the rate', () => {
    expect(estimateNow(running, start + 45_500)).toEqual({ seconds: 45, charged: '0.045000' });
  });
  it('never goes below the metered figure', () => {
    expect(estimateNow(running, start + 10_000)).toEqual({ seconds: 30, charged: '0.030000' });
  });
  it('is nothing once ended or before the start', () => {
    expect(estimateNow({ ...running, endedAt: '2026-12-04T10:01:00Z' }, start + 90_000)).toBeNull();
    expect(estimateNow({ ...running, startedAt: null }, start)).toBeNull();
  });
});
