// patience.mjs is how a browser test waits on a machine of any speed, as
// internal/await is for the Go tests: a wait lasts until what it waits for
// happens or until shortly before the run's own deadline, never a fixed
// number of seconds, so a slow, busy machine makes a test slower, never
// red, and a thing that never happens still fails with its message
// before the run is stopped. run.mjs sets the deadline for the whole run
// (GPUNEX_E2E_DEADLINE, epoch milliseconds: GPUNEX_E2E_MINUTES from its
// start, 60 by default); a file run on its own gets an hour.
const MARGIN = 30_000;
const deadline = Number(process.env.GPUNEX_E2E_DEADLINE) || Date.now() + 60 * 60_000;

/** How long a wait (or a test) started now may last, in milliseconds: until
 * MARGIN before the run's deadline, at least one second. */
export function patience() {
  return Math.max(deadline - Date.now() - MARGIN, 1_000);
}
