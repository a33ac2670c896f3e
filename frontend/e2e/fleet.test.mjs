// Fleet details end to end (issue 11, points 9–11): a real gpunex server
// (demo world, 1 s heartbeats), Chromium on the embedded SPA, and two real
// gpunex-agents with one simulated H100 each, both on one agent token.
//
// One agent is killed (its heartbeats stop without notice: the sweeper
// marks it offline, unplanned) and the other is stopped with SIGTERM (it
// says goodbye: offline, planned). Live, the unplanned card is the red
// alarm and the planned one neutral grey; after a reload both still say
// when their last heartbeat arrived, to the same instant. The tokens page
// refuses a second token of the same name (any case) at its field, and
// counts the token's two machines with its last use. At 390 px the GPU
// rows' memory, temperature and power and the sparkline, and each token's
// State and Revoke, lie within the screen.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAgentToken, startAgent } from './agent.mjs';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { frontendDir, startServer } from './server.mjs';
import { patience, testPatience } from './patience.mjs';

const en = JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', 'en.json'), 'utf8'));
const STEP_TIMEOUT = patience;
const PROVIDER = { email: 'provider@gpunex.demo', password: 'gpunex-demo' };
const SILENT = 'e2e-silent';
const PLANNED = 'e2e-planned';
const card = (hostname) => `[data-testid="machine-card"][data-hostname="${hostname}"]`;

test('fleet: an offline machine keeps its last heartbeat after a reload; planned is grey, unplanned red; tokens count their machines', { timeout: testPatience() }, async () => {
  const server = await startServer({ extraArgs: ['--heartbeat-interval', '1s'] });
  let browser;
  let page;
  const agents = {};
  let step = 'start';
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  // cardIs waits until hostname's card has the attributes in want.
  const cardIs = (hostname, want) =>
    page.waitForFunction(
      ([selector, attrs]) => {
        const el = document.querySelector(selector);
        return el !== null && Object.entries(attrs).every(([name, value]) => el.getAttribute(name) === value);
      },
      [card(hostname), want],
      { timeout: STEP_TIMEOUT() },
    );

  // heartbeatOf reads a card's last-heartbeat line.
  const heartbeatOf = (hostname) =>
    page.evaluate((selector) => {
      const line = document.querySelector(`${selector} [data-testid="machine-heartbeat"]`);
      return { at: line.getAttribute('data-at'), seconds: line.getAttribute('data-seconds'), text: line.textContent.trim() };
    }, card(hostname));

  // badgeOf reads a card's status badge: its severity, words and colour.
  const badgeOf = (hostname) =>
    page.evaluate((selector) => {
      const badge = document.querySelector(`${selector} [data-testid="machine-status"]`);
      const probe = document.createElement('span');
      probe.style.color = 'var(--danger)';
      document.body.append(probe);
      const danger = getComputedStyle(probe).color;
      probe.remove();
      return { severity: badge.getAttribute('data-severity'), text: badge.textContent.trim(), color: getComputedStyle(badge).color, danger };
    }, card(hostname));

  try {
    browser = await launchBrowser();
    page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport: { width: 1280, height: 900 } } });
    const byId = (id) => page.getByTestId(id);

    at('the demo provider logs in');
    await page.goto(`${server.url}/login`);
    await byId('field-email').fill(PROVIDER.email);
    await byId('field-password').fill(PROVIDER.password);
    await byId('login-submit').click();
    await byId('overview-page').waitFor();

    at('a token, then two agents on it');
    const token = await createAgentToken(page.context().request, server.url, 'fleet-e2e');
    agents.silent = startAgent({ server: server.url, token, hostname: SILENT, simulate: '1xH100' });
    agents.planned = startAgent({ server: server.url, token, hostname: PLANNED, simulate: '1xH100' });
    await cardIs(SILENT, { 'data-status': 'ONLINE', 'data-severity': 'ok' });
    await cardIs(PLANNED, { 'data-status': 'ONLINE', 'data-severity': 'ok' });
    // Telemetry arrives over the subscription: with the transition online,
    // then a sample every few seconds.
    await page.waitForFunction(
      (selectors) => selectors.every((s) => document.querySelector(`${s} [data-testid="gpu-row"]`)?.getAttribute('data-live') === 'true'),
      [card(SILENT), card(PLANNED)],
      { timeout: patience() },
    );

    at('one GPU row holds the essentials; the details open on demand');
    const row = page.locator(card(PLANNED)).getByTestId('gpu-row');
    assert.match(await row.getByTestId('gpu-name').textContent(), /H100/);
    for (const id of ['gpu-utilization', 'gpu-memory', 'gpu-temperature', 'gpu-power']) {
      assert.ok(await row.getByTestId(id).isVisible(), `${id} is shown in the row`);
    }
    assert.equal(await row.getByTestId('gpu-uuid').isVisible(), false, 'the UUID waits behind Details');
    await row.getByTestId('gpu-details').locator('summary').click();
    assert.ok(await row.getByTestId('gpu-uuid').isVisible(), 'Details shows the UUID');
    const throttle = (await row.getByTestId('gpu-throttle').textContent()).trim();
    assert.ok(throttle === en.overview.noThrottle || !/idle/i.test(throttle), `idle is not a throttle reason: ${throttle}`);
    const machineId = await page.locator(card(PLANNED)).getAttribute('data-machine-id');
    const shownId = (await page.locator(card(PLANNED)).getByTestId('machine-id').locator('[aria-hidden="true"]').textContent()).trim();
    assert.ok(machineId.length >= 32, `the agent's machine id: ${machineId}`);
    assert.equal(shownId, `${machineId.slice(0, 8)}…`, 'the machine id is shortened');
    assert.equal(await page.locator(card(PLANNED)).getByTestId('machine-id').getAttribute('title'), machineId, 'the whole id on hover');

    at('the agents stop: one killed, one with SIGTERM');
    await agents.silent.stop('SIGKILL');
    await agents.planned.stop('SIGTERM');
    await cardIs(PLANNED, { 'data-status': 'OFFLINE', 'data-offline-reason': 'PLANNED' });
    await cardIs(SILENT, { 'data-status': 'OFFLINE', 'data-offline-reason': 'UNPLANNED' });

    at('planned is neutral grey, unplanned the red alarm');
    const planned = await badgeOf(PLANNED);
    const silent = await badgeOf(SILENT);
    assert.equal(planned.severity, 'neutral');
    assert.equal(planned.text, en.overview.offline.PLANNED);
    assert.notEqual(planned.color, planned.danger, 'a planned stop is not drawn in the alarm colour');
    assert.equal(silent.severity, 'alarm');
    assert.equal(silent.text, en.overview.offline.UNPLANNED);
    assert.equal(silent.color, silent.danger, 'an unplanned stop is the alarm');

    at('live, both cards say when they were last heard from');
    const live = { [SILENT]: await heartbeatOf(SILENT), [PLANNED]: await heartbeatOf(PLANNED) };
    for (const [hostname, beat] of Object.entries(live)) {
      assert.ok(beat.at, `${hostname}: a last heartbeat, live: ${JSON.stringify(beat)}`);
      assert.ok(beat.text.startsWith('Last heartbeat:'), `${hostname}: ${beat.text}`);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-fleet-offline.png')}`);

    at('after a reload, they still do: the same heartbeat');
    await page.reload();
    await cardIs(SILENT, { 'data-status': 'OFFLINE' });
    await cardIs(PLANNED, { 'data-status': 'OFFLINE' });
    for (const hostname of [SILENT, PLANNED]) {
      const beat = await heartbeatOf(hostname);
      assert.notEqual(beat.text, en.overview.noHeartbeat, `${hostname}: not "${en.overview.noHeartbeat}" after a reload`);
      assert.ok(beat.text.startsWith('Last heartbeat:'), `${hostname}: ${beat.text}`);
      assert.equal(Date.parse(beat.at), Date.parse(live[hostname].at), `${hostname}: the heartbeat the live view showed`);
      assert.ok(Number(beat.seconds) >= Number(live[hostname].seconds), `${hostname}: ${beat.seconds} s ago`);
    }

    at('the tokens page refuses a name in use, at its field, ignoring case');
    await page.goto(`${server.url}/provider/tokens`);
    await byId('tokens-page').waitFor();
    const rowsBefore = await byId('token-row').count();
    await byId('field-name').fill('FLEET-E2E');
    await byId('token-create').click();
    const nameError = byId('field-name-error');
    await nameError.waitFor();
    assert.equal((await nameError.textContent()).trim(), en.userErrors.name.TAKEN);
    assert.equal(await byId('token-row').count(), rowsBefore, 'no token was made');

    at('the token counts its two machines and shows its last use');
    const tokenRow = page.locator('[data-testid="token-row"][data-name="fleet-e2e"]');
    assert.equal(await tokenRow.getByTestId('token-machines').getAttribute('data-count'), '2');
    assert.equal((await tokenRow.getByTestId('token-machines').textContent()).trim(), '2');
    assert.notEqual(await tokenRow.getByTestId('token-last-used').getAttribute('data-at'), '', 'used by its agents');
    await tokenRow.scrollIntoViewIfNeeded();
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-fleet-tokens.png')}`);

    at('at 390 px the tokens fit: State and Revoke on screen');
    await page.setViewportSize({ width: 390, height: 844 });
    await tokenRow.getByTestId('token-revoke').waitFor();
    const tokensFit = await page.evaluate(() => {
      const row = document.querySelector('[data-testid="token-row"][data-name="fleet-e2e"]');
      const inView = (el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth;
      };
      return {
        page: document.documentElement.scrollWidth,
        state: inView(row.querySelector('[data-testid="token-state"]')),
        revoke: inView(row.querySelector('[data-testid="token-revoke"]')),
      };
    });
    assert.deepEqual(tokensFit, { page: 390, state: true, revoke: true });
    await tokenRow.scrollIntoViewIfNeeded();
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-fleet-tokens-390.png')}`);

    at('at 390 px the Overview fits: memory, temperature, power and the sparkline on screen');
    await page.goto(`${server.url}/provider/overview`);
    await byId('overview-page').waitFor();
    // A demo machine online has telemetry and a sparkline.
    await page.waitForFunction(() => document.querySelector('[data-testid="gpu-row"][data-live="true"] [data-testid="gpu-sparkline"]') !== null, null, { timeout: patience() });
    const overviewFits = await page.evaluate(() => {
      const row = document.querySelector('[data-testid="gpu-row"][data-live="true"]');
      const outside = [];
      for (const id of ['gpu-name', 'gpu-utilization', 'gpu-memory', 'gpu-temperature', 'gpu-power', 'gpu-sparkline']) {
        const r = row.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
        if (!(r.width > 0 && r.left >= 0 && r.right <= window.innerWidth)) outside.push(`${id} ${Math.round(r.left)}–${Math.round(r.right)}`);
      }
      // Boxes past the screen's edge, but for those drawn for screen
      // readers only (clipped to nothing) and those of no size.
      const hidden = (el) => {
        for (let e = el; e; e = e.parentElement) {
          const s = getComputedStyle(e);
          if (s.display === 'none' || s.visibility === 'hidden' || s.clipPath === 'inset(50%)' || e.classList.contains('visually-hidden')) return true;
        }
        return false;
      };
      const wide = [...document.querySelectorAll('[data-testid="overview-page"] *')]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.height > 0 && (r.left < -0.5 || r.right > window.innerWidth + 0.5) && !hidden(el);
        })
        .map((el) => {
          const r = el.getBoundingClientRect();
          return `<${el.tagName.toLowerCase()} class="${el.getAttribute('class') ?? ''}"> in ${el.closest('[data-testid]')?.getAttribute('data-testid')} ${Math.round(r.left)}–${Math.round(r.right)}`;
        })
        .slice(0, 5);
      return { page: document.documentElement.scrollWidth, outside, wide };
    });
    assert.deepEqual(overviewFits, { page: 390, outside: [], wide: [] });
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-fleet-390.png')}`);

    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (err) {
    throw await explainFailure(err, {
      step,
      screenshots: { 'e2e-fleet-failure.png': page },
      logs: {
        ...Object.fromEntries(Object.entries(agents).map(([name, a]) => [`agent ${name} (${a.command})`, a.output()])),
        'server output': server.output(),
      },
    });
  } finally {
    for (const a of Object.values(agents)) await a.stop('SIGKILL').catch(() => {});
    await browser?.close().catch(() => {});
    await server.stop();
  }
});
