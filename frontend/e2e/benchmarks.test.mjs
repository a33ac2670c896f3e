// The provider's Benchmarks tab end to end: a real gpunex server (demo
// world, 1 s heartbeats), Chromium on the embedded SPA, and a real
// gpunex-agent simulating one H100 that overheats (--simulate
// 1xH100:throttled). A simulated agent benchmarks itself when it registers;
// the server delists the throttled GPU, and the tab shows it Delisted, with
// the thermal guidance. The agent is stopped and started again on the same
// data directory (the same machine) with a healthy H100; "Run benchmark
// again" asks for a run, the button says the benchmark is running, and the
// GPU turns Listed live, without a reload, with its score's history now
// drawn. The tab is also taken at 390 px, in English and in Arabic, and
// must not be wider than the screen. What is wrong comes first: the
// header's delisted count links to a problems card above the machines,
// inside the first screen at both widths, that names each delisted GPU by
// machine and model with why and what to check; each GPU shows its figures
// as a strip of pass and fail, the table one tap away. Screens are saved as
// artifacts/e2e-benchmarks*.png.
//
// GPUNEX_BIN and GPUNEX_AGENT_BIN name the binaries (default ../bin/…). The
// scripted stand-in agent (GPUNEX_E2E_AGENT=scripted) does not benchmark,
// so this test needs the real one.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentDataDir, createAgentToken, startAgent } from './agent.mjs';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { frontendDir, startServer } from './server.mjs';
import { keepPatient, patience, testPatience } from './patience.mjs';
import { navigate } from './session.mjs';

const locale = (name) => JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', `${name}.json`), 'utf8'));
const en = locale('en');
const ar = locale('ar');

// A benchmark (asked, run by the agent, scored) may take a while.
const RUN_TIMEOUT = patience;
const plain = (s) => (s ?? '').replace(/[\u2068\u2069]/g, '').trim();
// textStart is a translation up to its first placeholder.
const textStart = (text) => text.split('{{')[0];
const PROVIDER = { email: 'provider@gpunex.demo', password: 'gpunex-demo' };
const HOSTNAME = 'e2e-bench';
const MACHINE = `[data-testid="bench-machine"][data-hostname="${HOSTNAME}"]`;
const GPU = `${MACHINE} [data-testid="bench-gpu"]`;
const PHONE = { width: 390, height: 844 };

test(
  'benchmarks: a throttled GPU is shown Delisted with the thermal guidance, and Listed live after a healthy run asked from the tab',
  { timeout: testPatience(), skip: process.env.GPUNEX_E2E_AGENT === 'scripted' && 'the scripted agent does not benchmark' },
  async () => {
    const server = await startServer({ extraArgs: ['--heartbeat-interval', '1s'] });
    const dataDir = agentDataDir();
    let browser;
    let page;
    let phone;
    let agent;
    const agentLogs = [];
    let step = 'start';
    const pageErrors = [];
    const at = (label) => {
      step = label;
      console.log(`step: ${label}`);
    };

    // gpuIs waits until the e2e machine's GPU has the attributes in want.
    function gpuIs(want, timeout = RUN_TIMEOUT()) {
      return page.waitForFunction(
        ([selector, attrs]) => {
          const el = document.querySelector(selector);
          return el !== null && Object.entries(attrs).every(([name, value]) => el.getAttribute(name) === value);
        },
        [GPU, want],
        { timeout, polling: 250 },
      );
    }

    // problemOf is the problems card's entry for the e2e machine's GPU.
    async function problemOf() {
      const id = await page.locator(GPU).getAttribute('data-gpu-id');
      return page.locator(`[data-testid="bench-problem"][data-gpu-id="${id}"]`);
    }

    // problemsFirst checks, on p, that the problems card is the first card
    // of the page, above every machine, and starts within the first screen.
    async function problemsFirst(p, label) {
      const seen = await p.evaluate(() => {
        const problems = document.querySelector('[data-testid="bench-problems"]');
        const firstMachine = document.querySelector('[data-testid="bench-machine"]');
        return {
          problemsTop: problems ? problems.getBoundingClientRect().top + window.scrollY : null,
          machineTop: firstMachine ? firstMachine.getBoundingClientRect().top + window.scrollY : null,
          viewport: window.innerHeight,
          height: document.documentElement.scrollHeight,
        };
      });
      console.log(`${label}: problems card at ${seen.problemsTop} px, first machine at ${seen.machineTop} px, page ${seen.height} px tall`);
      assert.ok(seen.problemsTop !== null, `${label}: a problems card`);
      assert.ok(seen.problemsTop < seen.machineTop, `${label}: the problems card comes before the machines`);
      assert.ok(seen.problemsTop < seen.viewport, `${label}: the problems card starts within the first screen (${seen.problemsTop} of ${seen.viewport} px)`);
    }

    // machineStatus is the e2e machine's status and when it changed, from the API.
    async function machineStatus() {
      const res = await page.context().request.post(`${server.url}/graphql`, {
        headers: { 'content-type': 'application/json', 'X-GPUnex-CSRF': '1' },
        data: { query: '{ myProvider { machines { id hostname status statusChangedAt } } }' },
      });
      const body = await res.json();
      return body.data?.myProvider?.machines?.find((m) => m.hostname === HOSTNAME) ?? null;
    }

    // widthAt390 opens the tab on a phone-sized page and says how wide the document is.
    async function widthOnPhone(language) {
      await phone.evaluate((lng) => window.localStorage.setItem('gpunex.language', lng), language);
      await phone.goto(`${server.url}/provider/benchmarks`);
      await phone.locator(`${GPU}[data-listing="DELISTED"]`).waitFor();
      await phone.waitForFunction((lng) => document.documentElement.lang === lng, language);
      const width = await phone.evaluate(() => ({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth }));
      console.log(`screenshot: ${await saveScreenshot(phone, `e2e-benchmarks-390-${language}.png`)}`);
      return width;
    }

    try {
      browser = await launchBrowser();
      page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport: { width: 1360, height: 1000 } } });
      const byId = (id) => page.getByTestId(id);
      const text = async (locator) => plain(await locator.textContent());

      at('the demo provider logs in and opens the Benchmarks tab from the nav');
      await page.goto(`${server.url}/login`);
      await byId('field-email').fill(PROVIDER.email);
      await byId('field-password').fill(PROVIDER.password);
      await byId('login-submit').click();
      await byId('overview-page').waitFor();
      assert.equal(await text(byId('nav-benchmarks')), en.nav.benchmarks);
      await navigate(page, 'nav-benchmarks');
      await byId('benchmarks-page').waitFor();
      await page.waitForURL(/\/provider\/benchmarks$/);
      await page.evaluate(() => {
        window.__gpunexNoReload = true;
      });
      assert.equal(await page.locator(MACHINE).count(), 0, `no ${HOSTNAME} machine yet`);

      at("the demo world's delisted GPU comes first, and the header's delisted count links to it");
      await byId('bench-problems').waitFor();
      await problemsFirst(page, 'desktop');
      const demoProblem = page.getByTestId('bench-problem').first();
      assert.ok((await demoProblem.getByTestId('bench-guidance').count()) >= 1, 'the delisted demo GPU says what to check');
      assert.match(await text(demoProblem.getByTestId('bench-problem-link')), / on \S+/, 'the problem names the GPU and its machine');
      const delistedCount = byId('bench-count-delisted');
      assert.equal(await text(delistedCount), en.benchmarks.counts.delisted.replace('{{n}}', await page.getByTestId('benchmarks-page').getAttribute('data-delisted')));
      await delistedCount.click();
      await page.waitForFunction(() => window.location.hash === '#bench-problems');
      const shown = await byId('bench-problems').evaluate((el) => ({ top: el.getBoundingClientRect().top, viewport: window.innerHeight }));
      assert.ok(shown.top >= 0 && shown.top < shown.viewport, `the link shows the problems card (its top at ${shown.top} px)`);
      const demoGpuId = await demoProblem.getAttribute('data-gpu-id');
      const demoPanel = page.locator(`[data-testid="bench-gpu"][data-gpu-id="${demoGpuId}"]`);
      assert.equal(await demoPanel.getAttribute('data-listing'), 'DELISTED');
      assert.equal(await demoPanel.getByTestId('bench-why-link').getAttribute('href'), `#bench-problem-${demoGpuId}`, "the delisted GPU's panel links up to why");
      assert.ok(
        (await demoPanel.locator('[data-testid="bench-strip-item"][data-result="failed"]').count()) >= 1,
        "the delisted GPU's strip shows a metric below its minimum",
      );

      at('create an agent token and start an agent with a throttled H100');
      const token = await createAgentToken(page.context().request, server.url, 'e2e-bench');
      agent = startAgent({ server: server.url, token, hostname: HOSTNAME, simulate: '1xH100:throttled', dataDir });
      agentLogs.push(agent);
      console.log(`agent: ${agent.command}`);

      at('its registration benchmark delists the GPU, shown live with the thermal guidance');
      await gpuIs({ 'data-listing': 'DELISTED' });
      const gpu = page.locator(GPU);
      assert.equal(await gpu.count(), 1, 'one GPU');
      assert.equal(await text(gpu.getByTestId('bench-listing')), en.benchmarks.listing.DELISTED);
      assert.match(await text(gpu.locator('h3')), /^GPU 0 · .*H100/, 'the GPU is named by index and model');
      const problem = await problemOf();
      assert.equal(await problem.count(), 1, 'the throttled GPU is among the problems');
      assert.ok(plain(await problem.getByTestId('bench-problem-link').textContent()).endsWith(`on ${HOSTNAME}`), 'named with its machine');
      const guidance = problem.locator('[data-testid="bench-guidance"][data-code="THERMAL_THROTTLING"]');
      assert.equal(await guidance.count(), 1, 'the thermal guidance');
      const thermal = await text(guidance);
      assert.ok(thermal.startsWith(textStart(en.benchmarks.guidance.THERMAL_THROTTLING)), `thermal guidance in English: ${thermal}`);
      assert.match(thermal, /\d+ % of the run \(up to \d+(\.\d+)? °C\)/, `thermal guidance with its figures: ${thermal}`);
      assert.ok((await problem.getByTestId('bench-shortfall').count()) >= 1, 'at least one shortfall names why');
      for (const s of await problem.getByTestId('bench-shortfall').allTextContents()) {
        assert.match(plain(s), /measured .+, expected .+, minimum .+/, `a shortfall with its figures: ${s}`);
      }
      const strip = gpu.getByTestId('bench-strip-item');
      assert.ok((await strip.count()) >= 1, 'the latest figures at a glance');
      const results = await strip.evaluateAll((els) => els.map((el) => el.getAttribute('data-result')));
      assert.ok(results.includes('failed'), `a metric below its minimum in the strip: ${results}`);
      const figures = gpu.getByTestId('bench-figure');
      assert.equal(await figures.count(), 0, 'the table of figures waits for a tap');
      await gpu.getByTestId('bench-gpu-details').locator('summary').click();
      // The folded table is drawn on the details' toggle event, which the
      // browser fires after the click: wait for it before counting rows.
      await gpu.locator('[data-testid="bench-gpu-details"][data-opened="true"]').waitFor();
      assert.equal(await figures.count(), results.length, 'the table has a row per metric of the strip');
      for (const row of await figures.evaluateAll((els) =>
        els.map((el) => ({ supported: el.getAttribute('data-supported'), measured: el.querySelector('[data-testid="bench-figure-measured"]').textContent })),
      )) {
        if (row.supported === 'false') assert.equal(plain(row.measured), en.benchmarks.figure.unsupported, 'an unsupported metric is Not supported, never 0');
      }
      assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, 'the page was not reloaded');
      assert.equal(await page.getByTestId('error-notice').count(), 0, 'no request of the page failed');
      await page.evaluate(() => window.scrollTo(0, 0));
      console.log(`screenshot: ${await saveScreenshot(page, 'e2e-benchmarks-delisted.png')}`);

      at('on a 390 px phone the tab is no wider than the screen, in English and in Arabic');
      const phoneContext = await browser.newContext({ locale: 'en-US', viewport: PHONE, storageState: await page.context().storageState() });
      keepPatient(phoneContext);
      phone = await openPage(browser, { errors: pageErrors, context: phoneContext, name: 'phone' });
      await phone.goto(`${server.url}/`);
      for (const language of ['en', 'ar']) {
        const width = await widthOnPhone(language);
        assert.ok(width.scroll <= PHONE.width, `${language}: the page is ${width.scroll} px wide on a ${PHONE.width} px screen`);
        await problemsFirst(phone, `phone, ${language}`);
      }
      assert.equal(
        plain(await phone.locator(`${GPU} [data-testid="bench-listing"]`).textContent()),
        ar.benchmarks.listing.DELISTED,
        'the listing in Arabic',
      );
      const gpuId = await phone.locator(GPU).getAttribute('data-gpu-id');
      assert.ok(
        plain(await phone.locator(`[data-testid="bench-problem"][data-gpu-id="${gpuId}"] [data-testid="bench-guidance"][data-code="THERMAL_THROTTLING"]`).textContent()).startsWith(
          textStart(ar.benchmarks.guidance.THERMAL_THROTTLING),
        ),
        'the thermal guidance in Arabic',
      );
      await phoneContext.close();
      phone = undefined;

      at('the agent is stopped and started again on the same data directory with a healthy H100');
      const before = await machineStatus();
      assert.ok(before, 'the machine is known to the API');
      await agent.stop('SIGTERM');
      // Each GPU's benchmark keeps it loaded 5 s (the longest a simulated
      // one may): the run shows part by part, the network and the storage
      // seconds apart from the GPU.
      agent = startAgent({ server: server.url, token, hostname: HOSTNAME, simulate: '1xH100', dataDir, env: { GPUNEX_SIMULATED_BENCH_DURATION: '5s' } });
      agentLogs.push(agent);
      console.log(`agent: ${agent.command}`);
      const deadline = Date.now() + patience();
      for (;;) {
        const now = await machineStatus();
        if (now?.id === before.id && now.status === 'ONLINE' && now.statusChangedAt !== before.statusChangedAt) break;
        if (now && now.id !== before.id) throw new Error(`the restarted agent registered a new machine ${now.id} (was ${before.id})`);
        if (Date.now() > deadline) throw new Error(`the restarted agent did not come back online: ${JSON.stringify(now)}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal(await page.locator(MACHINE).count(), 1, 'still one machine: the same machine id');

      at('"Run benchmark again" asks for a run and the GPU turns Listed live');
      const machine = page.locator(MACHINE);
      // A driver or GPU change asks for a run by itself; wait for the button to be free.
      await page.waitForFunction((selector) => document.querySelector(`${selector} [data-testid="bench-request"]`)?.getAttribute('data-state') === 'ready', MACHINE, {
        timeout: RUN_TIMEOUT(),
      });
      const button = machine.getByTestId('bench-run-again');
      assert.equal(await text(button), en.benchmarks.again.button);
      const eventsBefore = Number(await machine.getAttribute('data-live-events'));
      // On a busy machine the requestBenchmark answer (its run queued) may
      // be read after the events of the whole run: the answer is held here
      // until the page shows the run over, so that order happens every
      // run, and the button must then count the cooldown down, not show
      // the finished run as running for good.
      let held = false;
      await page.route('**/graphql', async (route) => {
        if (!route.request().postData()?.includes('requestBenchmark')) return route.fallback();
        const response = await route.fetch();
        // The run shows part by part (the live events), then is over.
        await page.locator(`${MACHINE} [data-testid="bench-progress"]`).waitFor({ timeout: RUN_TIMEOUT() });
        await page.waitForFunction(
          ([selector, gpu]) =>
            document.querySelector(`${gpu}`)?.getAttribute('data-listing') === 'LISTED' && document.querySelector(`${selector} [data-testid="bench-progress"]`) === null,
          [MACHINE, GPU],
          { timeout: RUN_TIMEOUT() },
        );
        held = true;
        await route.fulfill({ response });
      });
      await button.click();
      // Issue 29 point 9: the run part by part, live: some parts done while
      // others still measure.
      await page.waitForFunction(
        (selector) => {
          const p = document.querySelector(`${selector} [data-testid="bench-progress"]`);
          return p !== null && Number(p.getAttribute('data-done')) >= 1 && Number(p.getAttribute('data-done')) < Number(p.getAttribute('data-parts'));
        },
        MACHINE,
        { timeout: RUN_TIMEOUT() },
      );
      const midRun = await machine.getByTestId('bench-step').evaluateAll((els) => els.map((el) => `${el.getAttribute('data-part')}:${el.getAttribute('data-state')}`));
      assert.deepEqual(midRun.map((s) => s.split(':')[0]), ['GPU', 'NETWORK', 'STORAGE'], 'the GPU, the network and the storage');
      assert.ok(midRun.some((s) => s.endsWith(':COMPLETED')) && midRun.some((s) => s.endsWith(':RUNNING')), `some done, some measuring: ${midRun}`);
      assert.match(plain(await machine.getByTestId('bench-progress').locator('h3').textContent()), /^This run, part by part: [12] of 3 done$/);
      console.log(`run part by part: ${midRun.join(', ')}`);
      console.log(`screenshot: ${await saveScreenshot(page, 'e2e-benchmarks-progress.png')}`);
      await page.waitForFunction(
        ([selector, listed]) =>
          document.querySelector(`${selector} [data-testid="bench-request"]`)?.getAttribute('data-state') === 'running' ||
          document.querySelector(`${selector} [data-testid="bench-gpu"]`)?.getAttribute('data-listing') === listed,
        [MACHINE, 'LISTED'],
      );
      // The state, the button's words and whether it is enabled, read at
      // one instant: a fast run can end between two separate reads.
      const seen = await page.evaluate((selector) => {
        const button = document.querySelector(`${selector} [data-testid="bench-run-again"]`);
        return {
          state: document.querySelector(`${selector} [data-testid="bench-request"]`)?.getAttribute('data-state'),
          words: button?.textContent ?? '',
          disabled: button?.disabled,
        };
      }, MACHINE);
      if (seen.state === 'running') {
        assert.equal(plain(seen.words), en.benchmarks.again.running);
        assert.equal(seen.disabled, true, 'the button is disabled while the run is pending');
      }
      assert.equal(await machine.getByTestId('bench-request-error').count(), 0, 'no user error');
      await gpuIs({ 'data-listing': 'LISTED' });
      assert.equal(await text(page.locator(`${GPU} [data-testid="bench-listing"]`)), en.benchmarks.listing.LISTED);
      assert.equal(await (await problemOf()).count(), 0, 'no longer among the problems once listed');
      assert.equal(await page.locator(`${GPU} [data-testid="bench-why-link"]`).count(), 0, 'no link to a reason once listed');
      assert.ok(Number(await machine.getAttribute('data-live-events')) > eventsBefore, 'Listed arrived over the subscription');
      assert.equal(await machine.getByTestId('bench-progress').count(), 0, 'the progress goes with the run');
      const stepsRes = await page.context().request.post(`${server.url}/graphql`, {
        headers: { 'content-type': 'application/json', 'X-GPUnex-CSRF': '1' },
        data: { query: '{ myProvider { benchmarks { hostname latestRun { steps { part gpuUuid outcome } } } } }' },
      });
      const ran = (await stepsRes.json()).data.myProvider.benchmarks.find((m) => m.hostname === HOSTNAME);
      assert.deepEqual(
        ran.latestRun.steps.map((x) => `${x.part}:${x.outcome}:${x.gpuUuid === null ? 'none' : 'gpu'}`).sort(),
        ['GPU:COMPLETED:gpu', 'NETWORK:COMPLETED:none', 'STORAGE:COMPLETED:none'],
        'the agent reported every part once',
      );
      assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, 'the page was not reloaded');
      assert.equal(await page.getByTestId('error-notice').count(), 0, 'no request of the page failed');

      at('the answer, read after the run ended, leaves the cooldown counting down and the history is drawn');
      await page.waitForFunction((selector) => document.querySelector(`${selector} [data-testid="bench-request"]`)?.getAttribute('data-state') === 'cooldown', MACHINE);
      assert.ok(held, 'the requestBenchmark answer was held until the run was over');
      await page.unroute('**/graphql');
      const countdown = await text(machine.getByTestId('bench-countdown'));
      assert.match(countdown, /^Available again in \d+:\d\d$/, `countdown: ${countdown}`);
      assert.equal(await button.isDisabled(), true, 'disabled during the cooldown');
      if ((await page.locator(`${GPU} [data-testid="bench-gpu-details"]`).getAttribute('open')) === null) {
        await page.locator(`${GPU} [data-testid="bench-gpu-details"] summary`).click();
      }
      const chart = page.locator(`${GPU} [data-testid="bench-history-chart"]`);
      await chart.waitFor();
      assert.ok(Number(await chart.getAttribute('data-points')) >= 2, 'at least two runs in the history');

      at('asking again within the cooldown is TOO_SOON');
      const res = await page.context().request.post(`${server.url}/graphql`, {
        headers: { 'content-type': 'application/json', 'X-GPUnex-CSRF': '1' },
        data: {
          query: 'mutation($id: ID!) { requestBenchmark(input: { machineId: $id }) { requestAllowedAt userErrors { field code } } }',
          variables: { id: before.id },
        },
      });
      const again = (await res.json()).data?.requestBenchmark;
      assert.deepEqual(again?.userErrors?.map((e) => e.code), ['TOO_SOON'], `requestBenchmark again: ${JSON.stringify(again)}`);

      await page.evaluate(() => window.scrollTo(0, 0));
      console.log(`screenshot: ${await saveScreenshot(page, 'e2e-benchmarks-listed.png')}`);
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
    } catch (err) {
      throw await explainFailure(err, {
        step,
        screenshots: { 'e2e-benchmarks-failure.png': page, ...(phone && { 'e2e-benchmarks-failure-390.png': phone }) },
        logs: {
          ...Object.fromEntries(agentLogs.map((a, i) => [`agent ${i + 1} output (${a.command})`, a.output()])),
          'server output': server.output(),
        },
      });
    } finally {
      await agent?.stop('SIGKILL').catch(() => {});
      await browser?.close().catch(() => {});
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
