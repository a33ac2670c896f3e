import { describe, expect, it } from 'vitest';
import { durationParts, estimateNow, exitMeaning, meterFill, type ExitMeaning } from './cost';

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

describe('meterFill', () => {
  it('is the charge as a part of the charge and the funds left', () => {
    expect(meterFill('0.390000', '1.170000')).toBe(25);
    expect(meterFill('1.000000', '2.000000')).toBe(33.333);
    // Two seconds of an hour's funds: a sliver, not nothing.
    expect(meterFill('0.000216', '0.389784')).toBe(0.055);
  });

  it('is empty before the first charge and full once the funds are gone', () => {
    expect(meterFill('0.000000', '5.000000')).toBe(0);
    expect(meterFill('0.390000', '0.000000')).toBe(100);
    expect(meterFill('0.000000', '0.000000')).toBe(0);
  });

  it('reads a balance below zero (a last tick past it) as none left', () => {
    expect(meterFill('0.390000', '-0.000500')).toBe(100);
  });
});
