import type { ProgressStep } from '../gql/graphql';

/** PROGRESS_STEPS is every step, in order (the schema's ProgressStep). */
export const PROGRESS_STEPS: readonly ProgressStep[] = [
  'APPLIED',
  'APPROVED',
  'AGENT_TOKEN',
  'MACHINE_ONLINE',
  'FIRST_BENCHMARK',
  'LISTED',
  'FIRST_RENTAL',
];

/** Mark is a step and when it was first reached (null while ahead). */
export interface Mark {
  step: ProgressStep;
  reachedAt: string | null;
}

/** StepState is a step as the tracker draws it. */
export type StepState = 'done' | 'current' | 'ahead';

/** TrackedStep is a step with its state. */
export interface TrackedStep extends Mark {
  state: StepState;
}

/**
 * track orders marks as PROGRESS_STEPS does (a step the server did not
 * send is ahead) and names the current step: the first one not reached.
 * Every later step is ahead, even one reached out of order (a token made
 * before the approval cannot be, but the tracker does not depend on it).
 */
export function track(marks: readonly Mark[]): TrackedStep[] {
  const byStep = new Map(marks.map((m) => [m.step, m.reachedAt]));
  let current = false;
  return PROGRESS_STEPS.map((step) => {
    const reachedAt = byStep.get(step) ?? null;
    let state: StepState = 'ahead';
    if (!current && reachedAt !== null) state = 'done';
    else if (!current) {
      state = 'current';
      current = true;
    }
    return { step, reachedAt: state === 'done' ? reachedAt : null, state };
  });
}

/** finished says whether every step is done. */
export function finished(steps: readonly TrackedStep[]): boolean {
  return steps.every((s) => s.state === 'done');
}

/**
 * applicantMarks is the tracker of someone not yet a provider: applied
 * when submitted, every later step ahead.
 */
export function applicantMarks(submittedAt: string): Mark[] {
  return PROGRESS_STEPS.map((step) => ({ step, reachedAt: step === 'APPLIED' ? submittedAt : null }));
}
