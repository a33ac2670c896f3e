// Earnings and payouts end to end: a real gpunex server with the demo world
// (its customers rent the demo provider's GPUs continuously, and the server
// meters every 30 s) and Chromium on the embedded SPA.
//
// (a) The demo provider opens the Earnings tab: the period's net total
// grows without a reload, between events by the accrual rate (read from
// the total's data-micros, exact micro-USDC); the tables per GPU and per
// model, the history chart over a range (hourly grouping refused over 31
// days) and the range's CSV download follow. The tab is taken at 390 px
// in English and in Arabic and must not be wider than the screen.
//
// (b) The provider sets a Solana payout address on the Payouts tab: a
// wrong password is refused at the password field; with the right one the
// method is saved, payouts are held after the change of destination, and
// the next payout's date is given. Screens: artifacts/e2e-earnings*.png.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { frontendDir, startServer } from './server.mjs';
import { graphql, logInThroughForm, navigate } from './session.mjs';
import { solanaWallet } from './wallet.mjs';
import { keepPatient, patience, testPatience } from './patience.mjs';
import { micros } from './usdc.mjs';

const locale = (name) => JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', `${name}.json`), 'utf8'));
const en = locale('en');
const ar = locale('ar');

// The total ticks every second at the accrual rate: it must grow within this.
const GROW_TIMEOUT = patience;
// With nothing rented at the moment, a demo customer may rent within
// this (a probe: else the test rents one itself).
const RENTAL_TIMEOUT = 60_000;
const plain = (s) => (s ?? '').replace(/[\u2068\u2069]/g, '').trim();
const PROVIDER = { email: 'provider@gpunex.demo', password: 'gpunex-demo' };
const CUSTOMER = { email: 'customer@gpunex.demo', password: 'gpunex-demo' };
const ADMIN = { email: 'admin@gpunex.demo', password: 'gpunex-demo' };
const PHONE = { width: 390, height: 844 };

// rentLisbon has the demo customer rent a GPU of the demo provider (its
// machines are in Lisbon) for a few minutes, as the demo customers do on
// their own every 30 to 90 s among all the demo providers' listings.
async function rentLisbon(browser, server) {
  const context = await browser.newContext();
  try {
    const login = await graphql(context, server, 'mutation($input: LogInInput!) { logIn(input: $input) { userErrors { field code } } }', { input: CUSTOMER });
    assert.deepEqual(login.logIn.userErrors, []);
    const market = await graphql(context, server, 'query($filter: MarketplaceFilter) { marketplace(filter: $filter, first: 50) { edges { node { id modelKey gpuCount nextMaintenanceAt location { city } } } } }', { filter: {} });
    const lisbon = market.marketplace.edges.map((e) => e.node).filter((l) => (l.location.city ?? '').toLowerCase() === 'lisbon' && !l.nextMaintenanceAt);
    assert.ok(lisbon.length > 0, `a free Lisbon listing: ${JSON.stringify(market)}`);
    const start = await graphql(context, server, 'mutation($input: StartRentalInput!) { startRental(input: $input) { rental { id state } userErrors { field code message } } }', {
      input: { listingId: lisbon[0].id, gpuCount: 1, image: 'busybox', command: ['sh', '-c', 'sleep 300'] },
    });
    assert.deepEqual(start.startRental.userErrors, [], 'the demo customer rents');
    console.log(`the demo customer rents ${lisbon[0].modelKey} in Lisbon: rental ${start.startRental.rental.id}`);
  } finally {
    await context.close();
  }
}

// periodAttr reads an attribute of the Earnings tab's period card.
const periodAttr = (page, name) => page.getByTestId('earnings-period').getAttribute(name);

// widthOf is the page's scroll width against the viewport's.
const widthOf = (page) => page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth }));

test('earnings: the demo provider watches the period\'s net grow live on the Earnings tab, charts and downloads its history', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  let page;
  let phone;
  let step = 'start';
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  try {
    browser = await launchBrowser();
    page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport: { width: 1360, height: 1000 }, acceptDownloads: true }, name: 'provider' });

    at('the demo provider opens the Earnings tab');
    await logInThroughForm(page, server, PROVIDER);
    await navigate(page, 'nav-earnings');
    await page.getByTestId('earnings-page').waitFor();
    await page.evaluate(() => {
      window.__gpunexNoReload = true;
    });
    assert.equal(plain(await page.locator('h1').textContent()), en.earnings.title);
    await page.waitForFunction(() => document.querySelector('[data-testid="earnings-period"]')?.getAttribute('data-live') === 'true');

    at('the period\'s net grows without a reload');
    let accrual = await periodAttr(page, 'data-accrual');
    const accruing = (timeout) =>
      page
        .waitForFunction(() => Number(document.querySelector('[data-testid="earnings-period"]')?.getAttribute('data-accrual') ?? '0') > 0, null, { timeout })
        .then(() => true, () => false);
    if (Number(accrual) === 0) {
      console.log(`nothing rented at the moment; waiting up to ${RENTAL_TIMEOUT / 1000} s for a demo rental`);
      if (!(await accruing(RENTAL_TIMEOUT))) {
        // The demo customers rent among every demo provider's GPUs: this
        // provider's may stay free a few minutes. One is rented for it.
        await rentLisbon(browser, server);
        assert.ok(await accruing(patience()), 'the rental accrues');
      }
      accrual = await periodAttr(page, 'data-accrual');
    }
    // The figure and its data-micros, read together (the page renders both at once).
    const reading = () =>
      page.evaluate(() => ({
        micros: document.querySelector('[data-testid="earnings-period"]')?.getAttribute('data-micros') ?? '0',
        text: (document.querySelector('[data-testid="earnings-net"]')?.textContent ?? '').replace(/[\u2068\u2069]/g, '').trim(),
      }));
    const before = await reading();
    console.log(`net ${before.micros} micro-USDC (${before.text}) at ${accrual} USDC/h`);
    assert.match(before.text, /^[\d,]+\.\d{2,6} USDC$/);
    await page.waitForFunction(
      (m) => BigInt(document.querySelector('[data-testid="earnings-period"]')?.getAttribute('data-micros') ?? '0') > BigInt(m),
      before.micros,
      { timeout: GROW_TIMEOUT() },
    );
    const after = await reading();
    assert.ok(BigInt(after.micros) > BigInt(before.micros), `the total grew: ${before.micros} → ${after.micros}`);
    assert.notEqual(after.text, before.text, 'the figure on the page changed');
    assert.match(plain(await page.getByTestId('earnings-accrual').textContent()), /^[\d,]+\.\d{2,6} USDC per hour$/);

    at('per GPU and per model: the GPUs rented now appear once metered');
    await page.locator('[data-testid="earnings-model"]').first().waitFor({ timeout: patience() });
    await page.locator('[data-testid="earnings-gpu"]').first().waitFor();
    const models = await page.getByTestId('earnings-model').evaluateAll((els) => els.map((el) => el.getAttribute('data-net')));
    assert.ok(models.every((n) => /^\d+\.\d{6}$/.test(n ?? '')), `model nets: ${models}`);
    // Each GPU by its machine and index, its model by name: never a UUID
    // or a catalogue key (the UUID stays on hover).
    const gpus = await page.getByTestId('earnings-gpu').evaluateAll((els) =>
      els.map((el) => ({ text: el.textContent ?? '', index: el.querySelector('[data-testid="earnings-gpu-index"]')?.textContent ?? '', uuid: el.querySelector('[data-testid="earnings-gpu-index"]')?.getAttribute('title') ?? '' })),
    );
    for (const g of gpus) {
      assert.match(g.index, /^GPU \d+$/, `a GPU is named by its index: ${g.text}`);
      assert.match(g.uuid, /^GPU-/, `its UUID on hover: ${g.uuid}`);
      assert.ok(!g.text.includes(g.uuid), `no UUID in the row: ${g.text}`);
      assert.doesNotMatch(g.text, /[A-Z0-9]+_[A-Z0-9_]+/, `the model by its display name, not its catalogue key: ${g.text}`);
    }
    // Issue 29 point 10: earnings per GPU as bars, largest first and full,
    // the others to scale, each with its percentage of the GPUs' total.
    const bars = await page.getByTestId('earnings-gpu').evaluateAll((els) =>
      els.map((el) => ({ net: el.getAttribute('data-net') ?? '', fill: Number(el.querySelector('[data-testid="earnings-share-bar"]')?.getAttribute('data-fill')), text: el.querySelector('.share-text')?.textContent ?? '' })),
    );
    const largest = micros(bars[0].net);
    const total = bars.reduce((sum, b) => sum + micros(b.net), 0n);
    assert.ok(largest > 0n, 'the first GPU earned');
    for (const b of bars) {
      assert.equal(b.fill, Number((micros(b.net) * 1000n) / largest) / 10, `a bar to scale: ${JSON.stringify(b)}`);
      assert.equal(b.text, `${Math.round(Number((micros(b.net) * 10000n) / total) / 100)}%`, `its part of the total: ${JSON.stringify(b)}`);
    }
    assert.deepEqual(bars.map((b) => b.fill), [...bars.map((b) => b.fill)].sort((a, b) => b - a), 'largest first');

    at('the history: 30 days by day, 7 days, 12 months by month, hourly refused over 31 days');
    const history = page.getByTestId('earnings-history');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="earnings-history"]')?.getAttribute('data-buckets') || '0') >= 30);
    await history.getByTestId('history-chart').locator('canvas').first().waitFor();
    await history.getByTestId('history-preset-DAYS_7').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="earnings-history"]')?.getAttribute('data-buckets') === '7');
    await history.getByTestId('history-preset-MONTHS_12').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="earnings-history"]')?.getAttribute('data-buckets') === '12');
    await history.getByTestId('field-historyGroupBy').selectOption('HOUR');
    const problem = history.getByTestId('history-problem');
    await problem.waitFor();
    assert.equal(await problem.getAttribute('data-problem'), 'HOUR_TOO_LONG');
    assert.equal(plain(await problem.textContent()), en.earnings.history.problem.HOUR_TOO_LONG.replace('{{days}}', '31'));
    assert.equal(await history.getByTestId('history-csv').isDisabled(), true, 'no CSV of a refused range');

    at('custom dates, grouped by hour, download as CSV');
    await history.getByTestId('history-preset-CUSTOM').click();
    const to = await history.getAttribute('data-to');
    const from = new Date(Date.parse(`${to}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    await history.getByTestId('field-historyFrom').fill(from);
    await history.getByTestId('field-historyGroupBy').selectOption('HOUR');
    await page.waitForFunction(() => document.querySelector('[data-testid="earnings-history"]')?.getAttribute('data-buckets') === '48');
    assert.equal(await problem.count(), 0);
    const [download] = await Promise.all([page.waitForEvent('download'), history.getByTestId('history-csv').click()]);
    assert.equal(download.suggestedFilename(), `earnings-${from}-${to}.csv`);
    // saveAs, not path(): the browser may be the shared one e2e/run.mjs
    // started, whose downloads live on its side of the connection.
    const saved = join(mkdtempSync(join(tmpdir(), 'gpunex-csv-')), download.suggestedFilename());
    await download.saveAs(saved);
    const csv = readFileSync(saved, 'utf8').trim().split('\n');
    assert.equal(csv[0], 'start,gross_usdc,fee_usdc,net_usdc');
    assert.equal(csv.length, 49, 'a line per hour of the two days');
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-earnings.png')}`);
    assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, 'the tab was not reloaded');

    at('on a 390 px phone the Earnings tab is no wider than the screen, in English and in Arabic');
    const context = await browser.newContext({ locale: 'en-US', viewport: PHONE, storageState: await page.context().storageState() });
    keepPatient(context);
    phone = await openPage(browser, { errors: pageErrors, context, name: 'phone' });
    await phone.goto(`${server.url}/`);
    for (const language of ['en', 'ar']) {
      await phone.evaluate((lng) => window.localStorage.setItem('gpunex.language', lng), language);
      await phone.goto(`${server.url}/provider/earnings`);
      await phone.getByTestId('earnings-page').waitFor();
      await phone.waitForFunction((lng) => document.documentElement.lang === lng, language);
      await phone.getByTestId('history-chart').locator('canvas').first().waitFor();
      const width = await widthOf(phone);
      console.log(`screenshot: ${await saveScreenshot(phone, `e2e-earnings-390-${language}.png`)}`);
      assert.ok(width.scroll <= PHONE.width, `the Earnings tab in ${language}: ${width.scroll} px wide on a ${PHONE.width} px screen`);
      if (language === 'ar') {
        assert.equal(await phone.evaluate(() => document.documentElement.dir), 'rtl');
        assert.equal(plain(await phone.locator('h1').textContent()), ar.earnings.title);
      }
    }
    await context.close();
    phone = undefined;

    assert.equal(await page.getByTestId('error-notice').count(), 0, 'no request failed');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the pages');
  } catch (err) {
    throw await explainFailure(err, {
      step,
      screenshots: { 'e2e-earnings-failure.png': page, ...(phone && { 'e2e-earnings-failure-390.png': phone }) },
      logs: { 'server output': server.output() },
    });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
});

test('payouts: the demo provider sets a Solana payout address with its password, and is told payouts are held and when the next one comes', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  let page;
  let step = 'start';
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  try {
    browser = await launchBrowser();
    page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport: { width: 1360, height: 1000 } }, name: 'provider' });

    at('the demo provider opens the Payouts tab');
    await logInThroughForm(page, server, PROVIDER);
    await navigate(page, 'nav-payouts');
    await page.getByTestId('payouts-page').waitFor();
    if ((await page.getByTestId('payout-method-form').count()) === 0) await page.getByTestId('payout-method-change').click();
    const form = page.getByTestId('payout-method-form');
    await form.waitFor();

    at('issue 29 point 5: an Ethereum address and a wrong password are both named at once, each by what to fix');
    await form.getByTestId('field-schedule-WEEKLY').check();
    await form.getByTestId('field-destination-SOLANA').check();
    await form.getByTestId('field-solanaAddress').fill('0x52908400098527886E0F7030069857D2E4169EE7');
    await form.getByTestId('field-payoutPassword').fill('not-the-password');
    await form.getByTestId('payout-method-save').click();
    const addressError = form.getByTestId('field-solanaAddress-error');
    await addressError.waitFor();
    assert.equal(plain(await addressError.textContent()), en.userErrors.WALLET_ETHEREUM);
    assert.equal(plain(await form.getByTestId('field-payoutPassword-error').textContent()), en.userErrors.payoutPassword.INVALID_CREDENTIALS);
    for (const [address, code] of [
      ['notanaddress', 'WALLET_WRONG_LENGTH'],
      ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'WALLET_IS_MINT'],
    ]) {
      await form.getByTestId('field-solanaAddress').fill(address);
      await form.getByTestId('payout-method-save').click();
      await page.waitForFunction(
        ([text]) => document.querySelector('[data-testid="field-solanaAddress-error"]')?.textContent?.includes(text),
        [en.userErrors[code]],
      );
    }
    assert.equal(await page.getByTestId('payout-method-saved').count(), 0);

    at('a wrong password is refused at the password field, nothing saved');
    const wallet = solanaWallet();
    console.log(`wallet ${wallet}`);
    await form.getByTestId('field-schedule-WEEKLY').check();
    await form.getByTestId('field-destination-SOLANA').check();
    await form.getByTestId('field-solanaAddress').fill(wallet);
    await form.getByTestId('field-payoutPassword').fill('not-the-password');
    await form.getByTestId('payout-method-save').click();
    const passwordError = form.getByTestId('field-payoutPassword-error');
    await passwordError.waitFor();
    assert.equal(plain(await passwordError.textContent()), en.userErrors.payoutPassword.INVALID_CREDENTIALS);
    assert.equal(await form.getByTestId('field-payoutPassword').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByTestId('payout-method-saved').count(), 0);

    at('with the right password the method is saved');
    await form.getByTestId('field-payoutPassword').fill(PROVIDER.password);
    await form.getByTestId('payout-method-save').click();
    await page.getByTestId('payout-method-saved').waitFor();
    assert.equal(plain(await page.getByTestId('payout-method-saved').textContent()), en.payouts.method.saved);
    assert.equal(plain(await page.getByTestId('payout-method-address').textContent()), wallet);
    assert.equal(plain(await page.getByTestId('payout-method-schedule').textContent()), en.payoutSchedule.WEEKLY);

    at('payouts are held after the change of destination, and the next payout has a date');
    const held = page.getByTestId('next-payout-held');
    await held.waitFor();
    assert.match(plain(await held.textContent()), /^Payouts are held until .+ after a change of destination\.$/);
    const due = page.getByTestId('next-payout-due');
    assert.match(plain(await due.textContent()), /^Next payout on \w+ \d{1,2}, \d{4}, for your earnings since \w+ \d{1,2}, \d{4}\.$/);
    const dueAt = await page.getByTestId('next-payout').getAttribute('data-due');
    assert.ok(Date.parse(dueAt ?? '') > Date.now(), `the next payout is ahead: ${dueAt}`);
    if ((await page.getByTestId('next-payout').getAttribute('data-threshold-met')) === 'false') {
      assert.match(plain(await page.getByTestId('next-payout-threshold').textContent()), /below the [\d.,]+ USDC threshold/);
    }
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-earnings-payouts.png')}`);

    at('on a 390 px phone the Payouts tab is no wider than the screen');
    await page.setViewportSize(PHONE);
    await page.reload();
    await page.getByTestId('payouts-page').waitFor();
    const width = await widthOf(page);
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-earnings-payouts-390.png')}`);
    assert.ok(width.scroll <= PHONE.width, `the Payouts tab: ${width.scroll} px wide on a ${PHONE.width} px screen`);

    assert.equal(await page.getByTestId('error-notice').count(), 0, 'no request failed');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (err) {
    throw await explainFailure(err, { step, screenshots: { 'e2e-earnings-payouts-failure.png': page }, logs: { 'server output': server.output() } });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
});

test('admin payouts: the demo admin filters payouts by state, is told no bank payout is pending, and credits the demo customer\'s funds, which its Rentals page shows', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  let admin;
  let customer;
  let step = 'start';
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  try {
    browser = await launchBrowser();
    const desktop = { viewport: { width: 1360, height: 1000 } };

    at('the demo customer\'s id and balance');
    customer = await openPage(browser, { errors: pageErrors, contextOptions: desktop, name: 'customer' });
    await logInThroughForm(customer, server, CUSTOMER);
    const { me, myFunds } = await graphql(customer.context(), server, '{ me { id email } myFunds { balance } }');

    at('the admin opens Payouts: tabs by state');
    admin = await openPage(browser, { errors: pageErrors, contextOptions: desktop, name: 'admin' });
    await logInThroughForm(admin, server, ADMIN);
    await navigate(admin, 'nav-admin-payouts');
    await admin.getByTestId('admin-payouts-page').waitFor();
    for (const state of ['PENDING', 'PROCESSING', 'PAID', 'FAILED', 'ALL']) {
      await admin.getByTestId(`payouts-tab-${state}`).click();
      await admin.waitForURL(state === 'ALL' ? /\/admin\/payouts$/ : new RegExp(`state=${state}$`));
      await admin.locator('[data-testid="admin-payouts-none"], [data-testid="admin-payouts-table"]').first().waitFor();
    }
    // Issue 29 point 8: the All tab groups the payouts by state, in the
    // order a payout goes through them, each group only its state's rows.
    await admin.getByTestId('payout-group').first().waitFor();
    const groups = await admin.getByTestId('payout-group').evaluateAll((els) =>
      els.map((el) => ({ state: el.getAttribute('data-state'), rows: [...el.querySelectorAll('[data-testid="payout-row"]')].map((r) => r.getAttribute('data-state')) })),
    );
    const order = ['PENDING', 'PROCESSING', 'PAID', 'FAILED'];
    assert.deepEqual(groups.map((g) => g.state), order.filter((s) => groups.some((g) => g.state === s)), `grouped in the order of the states: ${JSON.stringify(groups)}`);
    for (const g of groups) assert.ok(g.rows.length > 0 && g.rows.every((s) => s === g.state), `the ${g.state} group holds only its rows`);
    // A long wallet in one line, the whole of it on hover and for screen readers.
    const destination = admin.getByTestId('payout-destination').first();
    const wallet = await destination.getAttribute('data-destination');
    assert.equal(await destination.getAttribute('title'), wallet);
    assert.equal(plain(await destination.locator('[aria-hidden="true"]').textContent()), `${wallet.slice(0, 6)}…${wallet.slice(-6)}`);
    assert.equal(plain(await destination.locator('.visually-hidden').textContent()), wallet);

    at('the bank file: nothing pending is said in words');
    await admin.getByTestId('bank-file').click();
    const bankError = admin.getByTestId('bank-file-error');
    await bankError.waitFor();
    assert.equal(plain(await bankError.textContent()), en.userErrors.bankFile.INVALID_STATE);

    at('credit funds: the balance grows once per reference');
    const form = admin.getByTestId('credit-form');
    const reference = `e2e-${Date.now()}`;
    await form.getByTestId('field-email').fill(me.email);
    await form.getByTestId('field-amount').fill('25');
    await form.getByTestId('field-reference').fill(reference);
    await form.getByTestId('field-reason').fill('e2e: a bank transfer received');
    await form.getByTestId('credit-submit').click();
    await admin.getByTestId('credit-done').waitFor();
    const credited = plain(await admin.getByTestId('credit-done').textContent());
    assert.match(credited, /^Credited\. The customer's balance is now [\d,]+\.\d{2,6} USDC\.$/);
    await form.getByTestId('field-amount').fill('25');
    await form.getByTestId('field-reference').fill(reference);
    await form.getByTestId('field-reason').fill('e2e: the same transfer again');
    await form.getByTestId('credit-submit').click();
    await form.getByTestId('field-reference-error').waitFor();
    assert.equal(plain(await form.getByTestId('field-reference-error').textContent()), en.userErrors.reference.DUPLICATE);

    at('the customer\'s Rentals page shows the prepaid balance');
    await navigate(customer, 'nav-rentals');
    await customer.getByTestId('funds').waitFor();
    const balance = await customer.getByTestId('funds').getAttribute('data-balance');
    console.log(`balance ${myFunds.balance} → ${balance}`);
    assert.ok(Number(balance) >= Number(myFunds.balance) + 25 - 5, `the credit is in the balance (less what running rentals cost meanwhile): ${myFunds.balance} → ${balance}`);
    assert.match(plain(await customer.getByTestId('funds-balance').textContent()), /^[\d,]+\.\d{2,6} USDC$/);
    console.log(`screenshot: ${await saveScreenshot(admin, 'e2e-earnings-admin.png')}`);

    assert.equal(await admin.getByTestId('error-notice').count(), 0, 'no request of the admin failed');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the pages');
  } catch (err) {
    throw await explainFailure(err, { step, screenshots: { 'e2e-earnings-admin-failure.png': admin, 'e2e-earnings-customer-failure.png': customer }, logs: { 'server output': server.output() } });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
});
