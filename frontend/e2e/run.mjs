// run.mjs runs the browser tests (every e2e/*.test.mjs but the audit, or
// the files named on the command line) against one Chromium: it starts the
// browser once as a server and hands its endpoint to each file
// (GPUNEX_BROWSER_WS), whose launchBrowser connects to it instead of
// starting its own. Each test still opens its own contexts, so no cookie,
// storage or page crosses from one test to another; each file still starts
// its own gpunex server (on PostgreSQL in a database of its own), because
// the tests change the demo world and must not depend on the order they
// ran in. That independence lets files run side by side: most of a browser
// test is waiting for the platform (a metering tick, an agent's heartbeat,
// a mail), so three at once (GPUNEX_E2E_CONCURRENCY, 1 for one at a time)
// take about a third of the time on two cores; every wait is patient up to
// the run's one deadline, so a busier machine makes the run slower, never red.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser.mjs';

const files = process.argv.length > 2
  ? process.argv.slice(2)
  : readdirSync(new URL('.', import.meta.url))
    .filter((f) => f.endsWith('.test.mjs') && f !== 'audit.test.mjs')
    .sort()
    .map((f) => `e2e/${f}`);

const concurrency = Number(process.env.GPUNEX_E2E_CONCURRENCY) || 3;

const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
let code;
try {
  const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...files], {
    stdio: 'inherit',
    // One deadline for the whole run, which every wait is patient up to
    // (patience.mjs): a busy machine makes the run slower, never red.
    env: {
      ...process.env,
      GPUNEX_BROWSER_WS: server.wsEndpoint(),
      GPUNEX_E2E_DEADLINE: String(Date.now() + (Number(process.env.GPUNEX_E2E_MINUTES) || 60) * 60_000),
    },
  });
  code = await new Promise((resolve) => child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
} finally {
  await server.close();
}
process.exit(code);
