// patience.mjs is how a browser test waits on a machine of any speed, as
// internal/await is for the Go tests: a wait lasts until what it waits for
// happens or until shortly before the run's own deadline, never a fixed
// number of seconds, so a slow, busy machine makes a test slower, never
// red, and a thing that never happens still fails with its message
// before the run is stopped. run.mjs sets the deadline for the whole run
// (GPUNEX_E2E_DEADLINE, epoch milliseconds: GPUNEX_E2E_MINUTES from its
// start, 60 by default); a file run on its own gets an hour.
//
// A test's own timeout ends later than its waits (TEST_MARGIN before the
// deadline, not MARGIN): a wait that never ends then fails first, in the
// test, whose catch saves the screenshots and the server's log and names
// the step. With both at one instant the runner cancelled the test with
// only "test timed out", and a stall in CI could not be explained.
const MARGIN = 60_000;
const TEST_MARGIN = 20_000;
const deadline = Number(process.env.GPUNEX_E2E_DEADLINE) || Date.now() + 60 * 60_000;

/** How long a wait started now may last, in milliseconds: until MARGIN
 * before the run's deadline, at least one second. */
export function patience() {
  return Math.max(deadline - Date.now() - MARGIN, 1_000);
}

/** How long a test started now may last: until TEST_MARGIN before the
 * run's deadline, so its waits (patience) fail before it does. */
export function testPatience() {
  return Math.max(deadline - Date.now() - TEST_MARGIN, 2_000);
}

/** How often keepPatient sets a context's default timeout again. */
const REFRESH = 5_000;

/**
 * keepPatient makes patience() the default timeout of a Playwright
 * context's steps (clicks, waits without a timeout of their own), set
 * again every few seconds until the context closes: a default is a
 * duration from when the step starts, so one set once at the start would
 * let a step begun later outlast the test's own timeout.
 */
export function keepPatient(context) {
  context.setDefaultTimeout(patience());
  const timer = setInterval(() => context.setDefaultTimeout(patience()), REFRESH);
  timer.unref();
  context.on('close', () => clearInterval(timer));
  return context;
}
