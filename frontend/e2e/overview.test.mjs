// The provider's Overview end to end: a real gpunex server (demo world,
// 1 s heartbeats), Chromium on the embedded SPA, and a real gpunex-agent
// with two simulated H100s. The demo provider logs in and lands on the
// Overview; an agent token is created through the GraphQL API with the
// browser's session; the agent starts and its machine appears and turns
// Online without a reload, with both GPUs and live telemetry; SIGTERM makes
// the agent say goodbye and the card turns Offline (planned), pushed over
// the subscription. The Online screen is saved as artifacts/e2e-overview.png.
//
// GPUNEX_AGENT_BIN names the agent binary (default ../bin/gpunex-agent);
// GPUNEX_E2E_AGENT=scripted swaps it for the stand-in in agent.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startAgent } from './agent.mjs';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { frontendDir, startServer } from './server.mjs';

const en = JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', 'en.json'), 'utf8'));

const STEP_TIMEOUT = 30_000;
// Interpolated values carry Unicode isolates (U+2068..U+2069).
const plain = (s) => (s ?? '').replace(/[\u2068\u2069]/g, '').trim();
const PROVIDER = { email: 'provider@gpunex.demo', password: 'gpunex-demo' };
const HOSTNAME = 'e2e-host';
const CARD = `[data-testid="machine-card"][data-hostname="${HOSTNAME}"]`;

test('overview: watches a machine turn Online in the Overview without reload, then Offline (planned) on SIGTERM', { timeout: 240_000 }, async () => {
  const server = await startServer({ extraArgs: ['--heartbeat-interval', '1s'] });
  let browser;
  let page;
  let agent;
  let step = 'start';
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  let stopping = false;
  // cardIs waits until the e2e machine's card has the attributes in want,
  // failing at once if the agent exits on its own meanwhile.
  async function cardIs(want, timeout = STEP_TIMEOUT) {
    const waiting = page.waitForFunction(
      ([selector, attrs]) => {
        const card = document.querySelector(selector);
        return card !== null && Object.entries(attrs).every(([name, value]) => card.getAttribute(name) === value);
      },
      [CARD, want],
      { timeout },
    );
    if (!agent) return waiting;
    const died = agent.exited.then(({ code, signal }) => {
      throw new Error(`the agent exited (code ${code}, signal ${signal}) before the card showed ${JSON.stringify(want)}`);
    });
    died.catch(() => {}); // only the race below reports it
    return Promise.race([waiting, stopping ? waiting : died]);
  }

  try {
    browser = await launchBrowser();
    page = await openPage(browser, { errors: pageErrors, timeout: STEP_TIMEOUT, contextOptions: { viewport: { width: 1360, height: 1000 } } });
    const byId = (id) => page.getByTestId(id);
    const text = async (locator) => ((await locator.textContent()) ?? '').trim();

    at('the demo provider logs in and lands on the Overview');
    await page.goto(`${server.url}/login`);
    await byId('field-email').fill(PROVIDER.email);
    await byId('field-password').fill(PROVIDER.password);
    await byId('login-submit').click();
    await byId('overview-page').waitFor();
    assert.match(page.url(), /\/provider\/overview$/, 'a provider lands on the Overview');
    assert.equal(await text(byId('nav-overview')), en.nav.overview);
    // A marker on window survives only if the page never reloads.
    await page.evaluate(() => {
      window.__gpunexNoReload = true;
    });
    assert.equal(await page.locator(CARD).count(), 0, `no ${HOSTNAME} machine yet`);

    at('create an agent token through the GraphQL API with the session cookie');
    const res = await page.context().request.post(`${server.url}/graphql`, {
      headers: { 'content-type': 'application/json', 'X-GPUnex-CSRF': '1' },
      data: { query: 'mutation { createAgentToken(name: "e2e") { token userErrors { field code message } } }' },
    });
    const body = await res.json();
    assert.equal(res.status(), 200, `createAgentToken: ${JSON.stringify(body)}`);
    const token = body.data?.createAgentToken?.token;
    assert.match(token ?? '', /^gpx_a_\S{20,}$/, `createAgentToken: ${JSON.stringify(body)}`);

    at('the Overview is subscribed');
    // The demo world's own machines arrive as the subscription's initial
    // state; once they have, every transition reaches the page live.
    const demoMachines = Number(await byId('overview-page').getAttribute('data-machines'));
    if (demoMachines > 0) {
      await page.waitForFunction(() => document.querySelector('[data-testid="overview-page"]')?.getAttribute('data-live') === 'true');
    }

    at('start the agent with two simulated H100s');
    agent = startAgent({ server: server.url, token, hostname: HOSTNAME, simulate: '2xH100' });
    console.log(`agent: ${agent.command}`);

    at('the machine appears and turns Online without a reload');
    await cardIs({ 'data-status': 'ONLINE' });
    const card = page.locator(CARD);
    assert.equal(await text(card.getByTestId('machine-status')), en.overview.status.ONLINE);
    assert.equal(await card.getAttribute('data-simulated'), 'true');
    assert.equal(await text(card.getByTestId('machine-simulated')), en.overview.simulated);
    if (demoMachines > 0) {
      assert.ok(Number(await card.getAttribute('data-live-events')) >= 1, 'Online arrived over the subscription');
    }
    assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, 'the page was not reloaded');

    at('two GPU rows with telemetry');
    const rows = card.getByTestId('gpu-row');
    assert.equal(await rows.count(), 2, 'two GPUs');
    assert.deepEqual(await rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-index'))), ['0', '1']);
    for (let i = 0; i < 2; i++) {
      const row = rows.nth(i);
      assert.match(await text(row.getByTestId('gpu-name')), /H100/, `GPU ${i} is an H100`);
      assert.match(plain(await text(row.getByTestId('gpu-vram'))), /^\d+(\.\d)? GiB VRAM$/, `GPU ${i} VRAM in GiB`);
    }
    // Telemetry is polled every 10 s; within two polls every row is live
    // and its sparkline has at least two samples.
    await page.waitForFunction(
      (selector) => {
        const rows = [...document.querySelectorAll(`${selector} [data-testid="gpu-row"]`)];
        return (
          rows.length === 2 &&
          rows.every(
            (row) =>
              row.getAttribute('data-live') === 'true' &&
              Number(row.querySelector('[data-testid="gpu-sparkline"]')?.getAttribute('data-points')) >= 2,
          )
        );
      },
      CARD,
      { timeout: 25_000 },
    );
    assert.match(await text(rows.first().getByTestId('gpu-utilization')), /\d+%/, 'utilization in percent');
    assert.match(await text(rows.first().getByTestId('gpu-temperature')), /°C/, 'temperature in °C');
    const heartbeat = await text(card.getByTestId('machine-heartbeat'));
    assert.ok(heartbeat.startsWith('Last heartbeat:'), `last heartbeat: ${heartbeat}`);
    assert.notEqual(await text(card.getByTestId('machine-driver')), '', 'a driver version');
    assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, 'the page was not reloaded');

    at('screenshot');
    // From the top: a full-page shot scrolled down paints the sticky header
    // in the middle of the page.
    await page.evaluate(() => window.scrollTo(0, 0));
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-overview.png')}`);

    at('SIGTERM: the agent goes offline (planned) and the card follows live');
    const eventsBefore = Number(await card.getAttribute('data-live-events'));
    stopping = true;
    const exit = await agent.stop('SIGTERM');
    console.log(`agent exited: ${JSON.stringify(exit)}`);
    await cardIs({ 'data-status': 'OFFLINE', 'data-offline-reason': 'PLANNED' });
    assert.equal(await text(card.getByTestId('machine-status')), en.overview.offline.PLANNED);
    assert.ok(Number(await card.getAttribute('data-live-events')) > eventsBefore, 'Offline arrived over the subscription');
    await card.getByTestId('machine-telemetry-offline').waitFor();
    assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, 'the page was not reloaded');

    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (err) {
    throw await explainFailure(err, {
      step,
      screenshots: { 'e2e-overview-failure.png': page },
      logs: { ...(agent && { [`agent output (${agent.command})`]: agent.output() }), 'server output': server.output() },
    });
  } finally {
    await agent?.stop('SIGKILL').catch(() => {});
    await browser?.close().catch(() => {});
    await server.stop();
  }
});
