// Pricing, the Marketplace and Rentals end to end: a real gpunex server
// (demo world, 1 s heartbeats), Chromium on the embedded SPA, and a real
// gpunex-agent simulating one H100 (--simulate 1xH100), which runs a
// rental's command as a local process. The demo provider opens the Pricing
// tab, is told a seven-decimal rate is not valid, sets the schedule to 24/7
// and a rate for H100; the agent registers, is benchmarked and LISTED. The
// demo customer (no provider role) finds the new listing on the
// Marketplace, rents it (busybox, a command printing numbered lines, an
// environment variable), lands on the rental's page, watches it go Running
// with its log lines arriving live, and stops it after a confirmation;
// meanwhile the provider's Pricing tab shows the rental live, Running then
// Stopped, without a reload; its Overview shows the GPU Listed and Rented
// now, free again once stopped, and the demo world's delisted GPU linking to
// why. An anonymous visitor browses the Marketplace
// and is asked to sign in to rent. The three pages are taken at 390 px in
// English and in Arabic and must not be wider than the screen. Screens are
// saved as artifacts/e2e-rentals*.png.
//
// GPUNEX_BIN and GPUNEX_AGENT_BIN name the binaries (default ../bin/…). The
// scripted stand-in agent (GPUNEX_E2E_AGENT=scripted) neither benchmarks
// nor runs jobs, so this test needs the real one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAgentToken, startAgent } from './agent.mjs';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { frontendDir, startServer } from './server.mjs';
import { logInThroughForm, navigate } from './session.mjs';
import { keepPatient, patience, testPatience } from './patience.mjs';

const locale = (name) => JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', `${name}.json`), 'utf8'));
const en = locale('en');
const ar = locale('ar');

// Registration, the first benchmark and the listing may take a while.
const LIST_TIMEOUT = patience;
// A job report carries a newer log tail every few seconds.
const LOG_TIMEOUT = patience;
const plain = (s) => (s ?? '').replace(/[\u2068\u2069]/g, '').trim();
const PROVIDER = { email: 'provider@gpunex.demo', password: 'gpunex-demo' };
const CUSTOMER = { email: 'customer@gpunex.demo', password: 'gpunex-demo' };
const HOSTNAME = 'e2e-rentals';
const PHONE = { width: 390, height: 844 };
const RATE = '2.5';
// A command that prints a numbered line each second until stopped.
const COMMAND = `sh -c 'i=0; while true; do i=$((i+1)); echo "e2e line $i $GREETING"; sleep 1; done'`;

// lastLine is the highest "e2e line N" in a log text, 0 when there is none.
function lastLine(text) {
  const numbers = [...(text ?? '').matchAll(/e2e line (\d+)/g)].map((m) => Number(m[1]));
  return numbers.length ? Math.max(...numbers) : 0;
}

test(
  'rentals: a rate set on the Pricing tab lists a real simulated H100, which the customer rents from the Marketplace, watches run live and stops, the provider seeing it live',
  { timeout: testPatience(), skip: process.env.GPUNEX_E2E_AGENT === 'scripted' && 'the scripted agent neither benchmarks nor runs jobs' },
  async () => {
    const server = await startServer({ extraArgs: ['--heartbeat-interval', '1s'] });
    let browser;
    let provider;
    let customer;
    let phone;
    let overview;
    let agent;
    let step = 'start';
    const pageErrors = [];
    const at = (label) => {
      step = label;
      console.log(`step: ${label}`);
    };

    try {
      browser = await launchBrowser();
      const desktop = { viewport: { width: 1360, height: 1000 } };
      provider = await openPage(browser, { errors: pageErrors, contextOptions: desktop, name: 'provider' });
      customer = await openPage(browser, { errors: pageErrors, contextOptions: desktop, name: 'customer' });
      const text = async (locator) => plain(await locator.textContent());

      at('the demo provider opens the Pricing tab from the nav');
      await logInThroughForm(provider, server, PROVIDER);
      assert.equal(await text(provider.getByTestId('nav-pricing')), en.nav.pricing);
      await navigate(provider, 'nav-pricing');
      await provider.getByTestId('pricing-page').waitFor();
      await provider.waitForURL(/\/provider\/pricing$/);
      await provider.evaluate(() => {
        window.__gpunexNoReload = true;
      });

      at('a rate with seven decimals is refused at the field, before sending');
      const h100 = provider.locator('[data-testid="price-model"]').filter({ has: provider.locator('h3', { hasText: 'H100' }) }).first();
      await h100.waitFor();
      const model = await h100.getAttribute('data-model');
      assert.ok(model, 'the H100 row names its model key');
      const priceField = h100.locator(`[data-testid="field-${model}.pricePerHour"]`);
      await priceField.fill('2.1234567');
      await h100.getByTestId('price-save').click();
      const priceError = h100.locator(`[data-testid="field-${model}.pricePerHour-error"]`);
      await priceError.waitFor();
      assert.equal(await text(priceError), en.userErrors.pricePerHour.INVALID);

      at('the schedule is set to 24/7 and saved');
      const schedule = provider.getByTestId('pricing-schedule');
      await schedule.getByTestId('field-availability.kind-ALWAYS').check();
      await schedule.getByTestId('schedule-save').click();
      await schedule.getByTestId('schedule-saved').waitFor();
      await provider.waitForFunction(() => document.querySelector('[data-testid="pricing-schedule"]')?.getAttribute('data-open-now') === 'true');
      assert.equal(await text(schedule.getByTestId('schedule-next-change')), en.pricing.schedule.noChange);

      at(`the H100 rate is set to ${RATE} USDC and its history shows it`);
      await priceField.fill(RATE);
      await h100.getByTestId('price-save').click();
      await h100.getByTestId('price-saved').waitFor();
      await provider.waitForFunction((m) => document.querySelector(`[data-testid="price-model"][data-model="${m}"]`)?.getAttribute('data-price') === '2.500000', model);
      assert.equal(await priceError.count(), 0, 'no error once valid');
      assert.match(await text(h100.getByTestId('price-current')), /^2\.500000 USDC per GPU per hour, since /);
      assert.equal(await h100.getByTestId('price-history-item').first().getAttribute('data-price'), '2.500000');

      at('issue 29 point 4: the provider opens Rentals on my GPUs, a section of its own in the Fleet menu');
      await navigate(provider, 'nav-provider-rentals');
      await provider.getByTestId('provider-rentals-page').waitFor();
      await provider.waitForURL(/\/provider\/rentals$/);
      assert.equal(await text(provider.getByTestId('nav-provider-rentals')), en.nav.providerRentals);

      at('the customer opens the Marketplace filtered by the model: the listings before the agent');
      await logInThroughForm(customer, server, CUSTOMER);
      assert.equal(await customer.getByTestId('nav-pricing').count(), 0, 'a customer has no Pricing tab');
      await navigate(customer, 'nav-marketplace');
      await customer.getByTestId('marketplace-page').waitFor();
      await customer.getByTestId('field-model').selectOption(model);
      await customer.getByTestId('marketplace-search').click();
      await customer.waitForFunction(() => document.querySelector('[data-testid="marketplace-page"]')?.getAttribute('data-loaded') === 'true');
      await customer.waitForURL(new RegExp(`[?&]model=${model}`));
      const before = new Set(await customer.getByTestId('listing').evaluateAll((els) => els.map((el) => el.getAttribute('data-id'))));
      console.log(`listings of ${model} before the agent: ${before.size}`);

      at('a real agent with one simulated H100 registers, is benchmarked and listed');
      const token = await createAgentToken(provider.context().request, server.url, 'e2e-rentals');
      agent = startAgent({ server: server.url, token, hostname: HOSTNAME, simulate: '1xH100' });
      console.log(`agent: ${agent.command}`);
      let listingId = null;
      const deadline = Date.now() + patience();
      while (!listingId) {
        if (Date.now() > deadline) throw new Error(`no new ${model} listing within ${LIST_TIMEOUT() / 1000} s`);
        await new Promise((r) => setTimeout(r, 2000));
        await customer.getByTestId('marketplace-search').click();
        await customer.waitForFunction(() => document.querySelector('[data-testid="marketplace-page"]')?.getAttribute('data-loaded') === 'true');
        const ids = await customer.getByTestId('listing').evaluateAll((els) => els.map((el) => el.getAttribute('data-id')));
        listingId = ids.find((id) => !before.has(id)) ?? null;
      }
      const listing = customer.locator(`[data-testid="listing"][data-id="${listingId}"]`);
      assert.equal(await listing.getAttribute('data-gpus'), '1', 'one free GPU');
      assert.equal(await listing.getAttribute('data-price'), '2.500000', 'at the rate set');
      assert.equal(await text(listing.getByTestId('listing-price')), '2.500000 USDC/h');
      await customer.evaluate(() => window.scrollTo(0, 0));
      console.log(`screenshot: ${await saveScreenshot(customer, 'e2e-rentals-marketplace.png')}`);

      at('the listing shows what the benchmark measured against the datasheet, per USDC, and the provider');
      const tflops = Number(await listing.getByTestId('listing-performance').getAttribute('data-tflops'));
      assert.ok(tflops > 0, `measured TFLOPS: ${tflops}`);
      assert.match(await text(listing.getByTestId('listing-performance')), /TFLOPS .*of the datasheet.*TFLOPS per USDC\/h/);
      assert.notEqual(await text(listing.getByTestId('listing-provider')), '', 'the provider is named');
      // Issue 29 point 7: memory in one unit, GiB, as the Overview writes it
      // (a GPU's "80 GB" is 80 GiB of DRAM; disks alone are in GB and TB).
      assert.equal(await text(listing.getByTestId('listing-vram')), '80 GiB');

      at('a country typed in the address that is no ISO code is named at the country select, not searched');
      await customer.goto(`${server.url}/marketplace?model=${model}&country=Portugal`);
      await customer.getByTestId('field-filterCountry-error').waitFor();
      assert.equal(await text(customer.getByTestId('field-filterCountry-error')), en.userErrors.filterCountry.INVALID);
      await customer.goto(`${server.url}/marketplace?model=${model}`);
      await customer.locator(`[data-testid="listing"][data-id="${listingId}"]`).waitFor();

      at('the customer rents it: one GPU, busybox, a command printing lines, a variable');
      await listing.getByTestId('listing-rent').click();
      const dialog = customer.getByTestId('rent-dialog');
      await dialog.waitFor();
      await dialog.getByTestId('field-gpuCount').fill('2');
      await dialog.getByTestId('field-image').fill('busybox');
      await dialog.getByTestId('rent-submit').click();
      await dialog.getByTestId('field-gpuCount-error').waitFor();
      assert.equal(await text(dialog.getByTestId('field-gpuCount-error')), en.userErrors.gpuCount.OUT_OF_RANGE, 'no more GPUs than the listing has');
      await dialog.getByTestId('field-gpuCount').fill('1');
      await dialog.getByTestId('field-command').fill(COMMAND);
      await dialog.getByTestId('env-add').click();
      await dialog.getByTestId('field-env.0.name').fill('GREETING');
      await dialog.getByTestId('field-env.0.value').fill('hello');
      if ((await dialog.getByTestId('field-endBy').count()) > 0) await dialog.getByTestId('field-endBy').check();
      await dialog.getByTestId('rent-submit').click();
      await customer.waitForURL(/\/rentals\/[^/]+$/);
      const rentalId = customer.url().split('/').pop();
      const rental = customer.getByTestId('rental-page');
      await rental.waitFor();
      await customer.evaluate(() => {
        window.__gpunexNoReload = true;
      });

      at('the rental goes Running and its log lines arrive live');
      await customer.waitForFunction(() => document.querySelector('[data-testid="rental-page"]')?.getAttribute('data-state') === 'RUNNING', undefined, { timeout: LOG_TIMEOUT() });
      assert.equal(await text(rental.getByTestId('rental-state')), en.rentalState.RUNNING);
      assert.equal(await text(rental.getByTestId('rental-command')), `sh -c "i=0; while true; do i=$((i+1)); echo \\"e2e line $i $GREETING\\"; sleep 1; done"`);
      await customer.waitForFunction(() => /e2e line \d+ hello/.test(document.querySelector('[data-testid="rental-log"]')?.textContent ?? ''), undefined, { timeout: LOG_TIMEOUT() });
      const firstSeen = lastLine(await rental.getByTestId('rental-log').textContent());
      await customer.waitForFunction(
        (n) => {
          const numbers = [...(document.querySelector('[data-testid="rental-log"]')?.textContent ?? '').matchAll(/e2e line (\d+)/g)].map((m) => Number(m[1]));
          return numbers.length > 0 && Math.max(...numbers) > n;
        },
        firstSeen,
        { timeout: LOG_TIMEOUT() },
      );
      const log = rental.getByTestId('rental-log');
      const follows = await log.evaluate((el) => el.scrollHeight <= el.clientHeight || el.scrollHeight - el.scrollTop - el.clientHeight <= 24);
      assert.ok(follows, 'the log box follows its end');
      assert.equal(await log.evaluate((el) => getComputedStyle(el).fontFamily.includes('mono')), true, 'the log is monospace');
      console.log(`screenshot: ${await saveScreenshot(customer, 'e2e-rentals-running.png')}`);

      at('meanwhile the provider\'s Rentals section shows the rental running, live, by model name and GPU index, its time ticking');
      const providerRow = provider.locator(`[data-testid="provider-rental"][data-id="${rentalId}"]`);
      await provider.waitForFunction((id) => document.querySelector(`[data-testid="provider-rental"][data-id="${id}"]`)?.getAttribute('data-state') === 'RUNNING', rentalId, {
        timeout: LOG_TIMEOUT(),
      });
      assert.equal(await providerRow.getAttribute('data-hostname'), HOSTNAME);
      assert.equal(await text(providerRow.getByTestId('provider-rental-state')), en.rentalState.RUNNING);
      const modelName = await text(providerRow.getByTestId('provider-rental-model'));
      assert.match(modelName, /^1 × .*H100/, `the model by its display name: ${modelName}`);
      assert.ok(!modelName.includes('_'), `not a catalogue key: ${modelName}`);
      assert.match(await text(providerRow.getByTestId('provider-rental-gpus')), new RegExp(`${HOSTNAME} GPU 0$`));
      const elapsedBefore = await text(providerRow.getByTestId('provider-rental-elapsed'));
      await provider.waitForFunction(
        ([id, before]) => document.querySelector(`[data-testid="provider-rental"][data-id="${id}"] [data-testid="provider-rental-elapsed"]`)?.textContent !== before,
        [rentalId, elapsedBefore],
      );
      assert.equal(await provider.evaluate(() => window.__gpunexNoReload), true, 'the page was not reloaded');

      at("issue 29 point 3: the provider's Overview shows the GPU Listed and Rented now");
      overview = await provider.context().newPage();
      await overview.goto(`${server.url}/provider/overview`);
      const gpuRow = overview.locator(`[data-testid="machine-card"][data-hostname="${HOSTNAME}"] [data-testid="gpu-row"][data-index="0"]`);
      await gpuRow.waitFor();
      await overview.waitForFunction(
        (host) => document.querySelector(`[data-testid="machine-card"][data-hostname="${host}"] [data-testid="gpu-row"][data-index="0"]`)?.getAttribute('data-rented') === 'true',
        HOSTNAME,
      );
      assert.equal(await gpuRow.getAttribute('data-listing'), 'LISTED');
      assert.equal(await text(gpuRow.getByTestId('gpu-listing')), en.benchmarks.listing.LISTED);
      assert.equal(await text(gpuRow.getByTestId('gpu-rented')), en.overview.gpu.rented);
      const demoDelisted = overview.locator('[data-testid="gpu-row"][data-listing="DELISTED"]').first();
      assert.equal(await text(demoDelisted.getByTestId('gpu-listing')), en.benchmarks.listing.DELISTED, "the demo world's delisted GPU says so");
      assert.match(await demoDelisted.locator('a:has([data-testid="gpu-listing"])').getAttribute('href'), /^\/provider\/benchmarks#bench-problem-\d+$/, 'and links to why');

      at('on a 390 px phone the three pages are no wider than the screen, in English and in Arabic');
      for (const [who, path, ready] of [
        [customer, `/marketplace?model=${model}`, 'marketplace-page'],
        [customer, `/rentals/${rentalId}`, 'rental-page'],
        [provider, '/provider/pricing', 'pricing-page'],
        [provider, '/provider/rentals', 'provider-rentals-page'],
      ]) {
        const context = await browser.newContext({ locale: 'en-US', viewport: PHONE, storageState: await who.context().storageState() });
        keepPatient(context);
        phone = await openPage(browser, { errors: pageErrors, context, name: 'phone' });
        await phone.goto(`${server.url}/`);
        for (const language of ['en', 'ar']) {
          await phone.evaluate((lng) => window.localStorage.setItem('gpunex.language', lng), language);
          await phone.goto(`${server.url}${path}`);
          await phone.getByTestId(ready).waitFor();
          await phone.waitForFunction((lng) => document.documentElement.lang === lng, language);
          if (ready === 'marketplace-page') await phone.waitForFunction(() => document.querySelector('[data-testid="marketplace-page"]')?.getAttribute('data-loaded') === 'true');
          const width = await phone.evaluate(() => ({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth }));
          console.log(`screenshot: ${await saveScreenshot(phone, `e2e-rentals-390-${ready}-${language}.png`)}`);
          assert.ok(width.scroll <= PHONE.width, `${path} in ${language}: ${width.scroll} px wide on a ${PHONE.width} px screen`);
          if (ready === 'rental-page' && language === 'ar') {
            assert.equal(plain(await phone.getByTestId('rental-state').textContent()), ar.rentalState.RUNNING, 'the state in Arabic');
          }
        }
        await context.close();
        phone = undefined;
      }

      at('the customer stops the rental after a confirmation; the answer comes after the event that it stopped, and the page stays Stopped');
      // On a busy machine the stopRental answer (STOPPING) once arrived
      // after the live event that the agent had stopped it, and the page
      // went back to Stopping for good. The answer is held here until the
      // page shows the event's STOPPED, so that order happens every run.
      let answered = false;
      const stoppedShown = () => document.querySelector('[data-testid="rental-page"]')?.getAttribute('data-state') === 'STOPPED';
      await customer.route('**/graphql', async (route) => {
        if (!route.request().postData()?.includes('stopRental')) return route.fallback();
        const response = await route.fetch();
        await customer.waitForFunction(stoppedShown, undefined, { timeout: LOG_TIMEOUT() });
        await route.fulfill({ response });
        answered = true;
      });
      await rental.getByTestId('rental-stop').click();
      assert.equal(await text(rental.locator('.confirm > span').first()), en.rentals.stop.confirm);
      await rental.getByTestId('rental-stop-confirm').click();
      await customer.waitForFunction(stoppedShown, undefined, { timeout: LOG_TIMEOUT() });
      // Once the page has read the answer (data-stop-answers counts them),
      // the state must not have gone back.
      await customer.locator('[data-testid="rental-page"][data-stop-answers="1"]').waitFor({ timeout: LOG_TIMEOUT() });
      assert.ok(answered, 'the stopRental answer was held until the page showed STOPPED');
      await customer.unroute('**/graphql');
      assert.equal(await rental.getAttribute('data-state'), 'STOPPED', 'the late stopRental answer does not take the page back to Stopping');
      assert.equal(await text(rental.getByTestId('rental-state')), en.rentalState.STOPPED);
      assert.equal(await rental.getByTestId('rental-stop').count(), 0, 'no Stop button once stopped');
      assert.equal(await customer.evaluate(() => window.__gpunexNoReload), true, 'the rental page was not reloaded');
      await overview.waitForFunction(
        (host) => document.querySelector(`[data-testid="machine-card"][data-hostname="${host}"] [data-testid="gpu-row"][data-index="0"]`)?.getAttribute('data-rented') === 'false',
        HOSTNAME,
      );
      assert.equal(await overview.locator(`[data-testid="machine-card"][data-hostname="${HOSTNAME}"] [data-testid="gpu-rented"]`).count(), 0, 'the Overview shows the GPU free again, live');

      at('the rental page tells how it ended and, once metered, its final charge and billed seconds, live');
      assert.equal(await rental.getByTestId('rental-end').getAttribute('data-end'), 'STOPPED_BY_YOU');
      assert.equal(await text(rental.getByTestId('rental-end')), en.rentals.end.STOPPED_BY_YOU);
      await customer.waitForFunction(
        () => {
          const cost = document.querySelector('[data-testid="rental-cost"]');
          return cost && cost.getAttribute('data-charged') !== '0.000000' && Number(cost.getAttribute('data-billed-seconds')) > 0;
        },
        undefined,
        { timeout: LOG_TIMEOUT() },
      );
      const cost = rental.getByTestId('rental-cost');
      const charged = await cost.getAttribute('data-charged');
      const billedSeconds = Number(await cost.getAttribute('data-billed-seconds'));
      // billing's rule: rate × GPUs × whole seconds ÷ 3600, rounded down to the micro-USDC.
      const micros = (BigInt(Math.round(Number(RATE) * 1e6)) * BigInt(billedSeconds)) / 3600n;
      assert.equal(charged, `${micros / 1000000n}.${String(micros % 1000000n).padStart(6, '0')}`, 'the final charge is the rate times the billed seconds');
      const finalText = await text(rental.getByTestId('rental-charged'));
      assert.match(finalText, /USDC$/);
      assert.equal(await rental.getByTestId('rental-estimate').count(), 0, 'no estimate once ended');
      assert.equal(await text(rental.getByTestId('rental-refunded')), en.rentals.cost.noRefund);
      assert.equal(await customer.evaluate(() => window.__gpunexNoReload), true, 'the charge arrived without a reload');

      at('the receipt shows the same final charge');
      await rental.getByTestId('rental-receipt-link').click();
      await customer.getByTestId('receipt-page').waitFor();
      assert.equal(await customer.getByTestId('receipt-page').getAttribute('data-charged'), charged);
      assert.equal(await text(customer.getByTestId('receipt-charged')), finalText);
      console.log(`screenshot: ${await saveScreenshot(customer, 'e2e-rentals-receipt.png')}`);
      await customer.goBack();
      await rental.waitFor();

      at('the provider sees it stopped, live');
      await provider.waitForFunction((id) => document.querySelector(`[data-testid="provider-rental"][data-id="${id}"]`)?.getAttribute('data-state') === 'STOPPED', rentalId, {
        timeout: LOG_TIMEOUT(),
      });
      assert.ok(Number(await provider.getByTestId('provider-rentals').getAttribute('data-live-events')) >= 2, 'the changes arrived over providerRentalUpdated');
      // What it earned the provider, live from the meter: the customer's
      // charge less the platform's fee.
      await provider.waitForFunction(
        ([id, total]) => {
          const earned = document.querySelector(`[data-testid="provider-rental"][data-id="${id}"]`)?.getAttribute('data-earned');
          return earned && earned !== '0.000000' && BigInt(earned.replace('.', '')) < BigInt(total.replace('.', ''));
        },
        [rentalId, charged],
        { timeout: LOG_TIMEOUT() },
      );
      assert.match(await text(providerRow.getByTestId('provider-rental-earned')), /USDC$/);
      assert.equal(await provider.evaluate(() => window.__gpunexNoReload), true, 'the page was not reloaded');
      await provider.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      console.log(`screenshot: ${await saveScreenshot(provider, 'e2e-rentals-provider.png')}`);

      at('the customer\'s Rentals list shows it stopped');
      await navigate(customer, 'nav-rentals');
      await customer.getByTestId('rentals-page').waitFor();
      await customer.locator(`[data-testid="rental-row"][data-id="${rentalId}"][data-state="STOPPED"]`).waitFor();
      assert.equal(await text(customer.locator(`[data-testid="rental-row"][data-id="${rentalId}"]`).getByTestId('rental-row-cost')), finalText, 'the list shows its cost');
      await customer.getByTestId('rentals-month-total').waitFor();
      const micros6 = (v) => BigInt(v.replace('.', ''));
      assert.ok(micros6(await customer.getByTestId('rentals-month-total').getAttribute('data-charged')) >= micros6(charged), "the month's total holds this rental's charge");

      at('the statement lists the charges and ends at the balance');
      await customer.getByTestId('rentals-statement-link').click();
      await customer.getByTestId('statement-page').waitFor();
      assert.ok((await customer.locator('[data-testid="statement-line"]').count()) > 0, 'the statement has lines');
      while ((await customer.getByTestId('statement-next').count()) > 0) {
        const first = await customer.getByTestId('statement-line').first().getAttribute('data-balance');
        await customer.getByTestId('statement-next').click();
        await customer.waitForFunction((b) => document.querySelector('[data-testid="statement-line"]')?.getAttribute('data-balance') !== b, first);
      }
      const last = customer.getByTestId('statement-line').last();
      assert.equal(await last.getAttribute('data-balance'), await customer.getByTestId('statement-page').getAttribute('data-balance'), 'the running balance ends at the balance');

      at('an anonymous visitor browses the Marketplace and is asked to sign in to rent');
      const anonymousContext = await browser.newContext({ locale: 'en-US', viewport: desktop.viewport });
      keepPatient(anonymousContext);
      const anonymous = await openPage(browser, { errors: pageErrors, context: anonymousContext, name: 'anonymous' });
      await anonymous.goto(`${server.url}/`);
      await navigate(anonymous, 'nav-marketplace');
      await anonymous.getByTestId('marketplace-page').waitFor();
      await anonymous.waitForFunction(() => document.querySelector('[data-testid="marketplace-page"]')?.getAttribute('data-loaded') === 'true');
      await anonymous.getByTestId('listing-rent').first().click();
      await anonymous.getByTestId('rent-sign-in').waitFor();
      assert.equal(await anonymous.getByTestId('rent-form').count(), 0, 'no rent form before signing in');
      await anonymousContext.close();

      assert.equal(await customer.getByTestId('error-notice').count(), 0, 'no request of the customer failed');
      assert.equal(await provider.getByTestId('error-notice').count(), 0, 'no request of the provider failed');
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the pages');
    } catch (err) {
      throw await explainFailure(err, {
        step,
        screenshots: {
          'e2e-rentals-failure-provider.png': provider,
          'e2e-rentals-failure-customer.png': customer,
          ...(phone && { 'e2e-rentals-failure-390.png': phone }),
        },
        logs: { ...(agent && { [`agent output (${agent.command})`]: agent.output() }), 'server output': server.output() },
      });
    } finally {
      await agent?.stop('SIGKILL').catch(() => {});
      await browser?.close().catch(() => {});
      await server.stop();
    }
  },
);
