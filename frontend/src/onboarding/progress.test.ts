import { describe, expect, it } from 'vitest';
import { applicantMarks, finished, PROGRESS_STEPS, track, type Mark } from './progress';

const at = '2026-12-01T10:00:00Z';

describe('track', () => {
  it('marks the reached steps done, the first one ahead current and the rest ahead', () => {
    const marks: Mark[] = PROGRESS_STEPS.map((step, i) => ({ step, reachedAt: i < 3 ? at : null }));
    const steps = track(marks);
    expect(steps.map((s) => s.state)).toEqual(['done', 'done', 'done', 'current', 'ahead', 'ahead', 'ahead']);
    expect(steps[3]?.step).toBe('MACHINE_ONLINE');
    expect(finished(steps)).toBe(false);
  });

  it('keeps a step reached after an unreached one ahead, and orders the steps as the schema does', () => {
    const marks: Mark[] = [...PROGRESS_STEPS].reverse().map((step) => ({ step, reachedAt: step === 'AGENT_TOKEN' ? null : at }));
    const steps = track(marks);
    expect(steps.map((s) => s.step)).toEqual(PROGRESS_STEPS);
    expect(steps.map((s) => s.state)).toEqual(['done', 'done', 'current', 'ahead', 'ahead', 'ahead', 'ahead']);
    expect(steps[4]?.reachedAt).toBeNull();
  });

  it('is finished once the first rental is reached, and treats a missing step as ahead', () => {
    expect(finished(track(PROGRESS_STEPS.map((step) => ({ step, reachedAt: at }))))).toBe(true);
    expect(track([{ step: 'APPLIED', reachedAt: at }]).map((s) => s.state)).toEqual(['done', 'current', 'ahead', 'ahead', 'ahead', 'ahead', 'ahead']);
  });
});

describe('applicantMarks', () => {
  it('has the application submitted and the approval next', () => {
    expect(track(applicantMarks(at)).map((s) => [s.step, s.state])).toEqual([
      ['APPLIED', 'done'],
      ['APPROVED', 'current'],
      ['AGENT_TOKEN', 'ahead'],
      ['MACHINE_ONLINE', 'ahead'],
      ['FIRST_BENCHMARK', 'ahead'],
      ['LISTED', 'ahead'],
      ['FIRST_RENTAL', 'ahead'],
    ]);
  });
});
