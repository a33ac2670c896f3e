// Prepaid funds and manual payouts end to end: one gpunex server with the
// demo world, metering every 2 s and running payouts every 2 s, and
// Chromium on the embedded SPA.
//
// (1) A new customer (signed up through the form, no funds) rents one of
// the demo provider's GPUs in Lisbon from the Marketplace: the rent dialog
// says the balance is empty, and the start is refused with the funds
// notice (INSUFFICIENT_FUNDS), nothing rented. The admin credits exactly
// one hour of the listing's price; the same dialog then starts the rental
// (a balance of one hour is the least a start asks for), the Rentals page
// shows the balance being spent, and at the first metering the bell brings
// the low-funds notice (under an hour left). The exhausted notice needs the
// hour to run out, too long for a test: not covered here.
//
// (2) That rental earns the demo provider money this period. The provider
// sets a monthly payout to a new wallet with its password and asks to be
// paid now (its monthly payout is due next month): after the new wallet's
// 1 s cooling-off, with no Solana node configured, a MANUAL payout is made,
// PENDING on the provider's Payouts tab. The
// admin marks it paid with a reference on the admin payouts page, and the
// provider's Payouts tab shows it PAID with that reference.
// Screens: artifacts/e2e-funds*.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { confirmationLink } from './mail.mjs';
import { frontendDir, startServer } from './server.mjs';
import { graphql, logInThroughForm, navigate } from './session.mjs';
import { solanaWallet } from './wallet.mjs';
import { patience, testPatience } from './patience.mjs';
import { micros } from './usdc.mjs';

const en = JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', 'en.json'), 'utf8'));

// Metering and payout runs every 2 s: what they cause shows within this.
const RUN_TIMEOUT = patience;
const plain = (s) => (s ?? '').replace(/[\u2068\u2069]/g, '').trim();
const PROVIDER = { email: 'provider@gpunex.demo', password: 'gpunex-demo' };
const ADMIN = { email: 'admin@gpunex.demo', password: 'gpunex-demo' };
const DESKTOP = { viewport: { width: 1360, height: 1000 } };

// lisbonListing is a listing of the demo provider (its machines are in
// Lisbon) with a free GPU and no maintenance planned, the cheapest first.
async function lisbonListing(context, server) {
  const market = await graphql(context, server, 'query($filter: MarketplaceFilter) { marketplace(filter: $filter, first: 50) { edges { node { id modelKey gpuCount pricePerHour nextMaintenanceAt location { city } } } } }', { filter: {} });
  const lisbon = market.marketplace.edges
    .map((e) => e.node)
    .filter((l) => (l.location.city ?? '').toLowerCase() === 'lisbon' && !l.nextMaintenanceAt && l.gpuCount > 0)
    .sort((a, b) => Number(a.pricePerHour) - Number(b.pricePerHour));
  assert.ok(lisbon.length > 0, `a free Lisbon listing: ${JSON.stringify(market)}`);
  return lisbon[0];
}

test('funds and manual payouts: a customer without funds is refused, rents once credited and is told funds run low; the admin marks the provider\'s manual payout paid and the provider sees it', { timeout: testPatience() }, async () => {
  const server = await startServer({ extraArgs: ['--metering-every', '2s', '--payout-every', '2s', '--payout-cooling-off', '1s', '--payout-threshold', '0.000001'] });
  let browser;
  let customer;
  let admin;
  let provider;
  let step = 'start';
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  try {
    browser = await launchBrowser();

    at('a new customer signs up and confirms the address: no funds');
    customer = await openPage(browser, { errors: pageErrors, contextOptions: DESKTOP, name: 'customer' });
    const stamp = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const newcomer = { name: `Nina Nofunds ${stamp.slice(-5)}`, email: `nina.${stamp}@example.com`, password: 'no-funds-yet-2026' };
    await customer.goto(`${server.url}/signup`);
    await customer.getByTestId('field-name').fill(newcomer.name);
    await customer.getByTestId('field-email').fill(newcomer.email);
    await customer.getByTestId('field-password').fill(newcomer.password);
    await customer.getByTestId('signup-submit').click();
    await customer.getByTestId('signup-sent').waitFor();
    await customer.goto(await confirmationLink(server.dataDir, newcomer.email));
    await customer.getByTestId('account-page').waitFor();
    const { me, myFunds } = await graphql(customer.context(), server, '{ me { id } myFunds { balance } }');
    assert.equal(Number(myFunds.balance), 0, 'a new customer has no funds');

    at('the Marketplace: the rent dialog says the balance is empty');
    const listing = await lisbonListing(customer.context(), server);
    console.log(`listing ${listing.id}: ${listing.modelKey} in Lisbon at ${listing.pricePerHour} USDC/h`);
    await navigate(customer, 'nav-marketplace');
    await customer.getByTestId('marketplace-page').waitFor();
    const row = customer.locator(`[data-testid="listing"][data-id="${listing.id}"]`);
    await row.getByTestId('listing-rent').click();
    const dialog = customer.getByTestId('rent-dialog');
    await dialog.waitFor();
    await dialog.getByTestId('funds').waitFor();
    assert.equal(Number(await dialog.getByTestId('funds').getAttribute('data-balance')), 0);
    assert.equal(plain(await dialog.getByTestId('funds-empty').textContent()), en.funds.addFunds);

    at('renting without funds is refused with the funds notice, nothing rented');
    await dialog.getByTestId('field-gpuCount').fill('1');
    await dialog.getByTestId('field-image').fill('busybox');
    await dialog.getByTestId('field-command').fill('sleep 600');
    await dialog.getByTestId('rent-submit').click();
    const refused = dialog.getByTestId('rent-insufficient-funds');
    await refused.waitFor();
    assert.equal(plain(await refused.locator('p').nth(0).textContent()), en.marketplace.rent.insufficientFunds);
    assert.equal(plain(await refused.locator('p').nth(1).textContent()), en.marketplace.rent.addFunds);
    assert.equal(await dialog.getByTestId('rent-form-error').count(), 0, 'the refusal is not also listed among the form errors');
    assert.match(customer.url(), /\/marketplace/, 'the dialog stays open');
    const { myRentals } = await graphql(customer.context(), server, '{ myRentals(first: 5) { edges { node { id } } } }');
    assert.equal(myRentals.edges.length, 0, 'nothing was rented');
    console.log(`screenshot: ${await saveScreenshot(customer, 'e2e-funds-refused.png')}`);

    at('the admin credits exactly one hour of the listing');
    admin = await openPage(browser, { errors: pageErrors, contextOptions: DESKTOP, name: 'admin' });
    await logInThroughForm(admin, server, ADMIN);
    const credit = await graphql(admin.context(), server, 'mutation($input: CreditFundsInput!) { creditFunds(input: $input) { userErrors { field code } } }', {
      input: { userId: me.id, amount: listing.pricePerHour, reference: `e2e-funds-${stamp}`, reason: 'e2e: one hour of the listing' },
    });
    assert.deepEqual(credit.creditFunds.userErrors, []);

    at('with one hour\'s funds the same dialog starts the rental');
    await dialog.getByTestId('rent-submit').click();
    await customer.waitForURL(/\/rentals\/[^/]+$/);
    await customer.getByTestId('rental-page').waitFor();
    const rentalId = await customer.getByTestId('rental-page').getAttribute('data-id');
    console.log(`rental ${rentalId}`);

    at('at the first metering the bell brings the low-funds notice');
    await customer.getByTestId('notification-unread-count').waitFor({ timeout: RUN_TIMEOUT() });
    await customer.getByTestId('notification-bell').click();
    const low = customer.locator('[data-testid="notification-item"][data-kind="billing.funds_low"]');
    await low.waitFor({ timeout: RUN_TIMEOUT() });
    // Written by the SPA from the notice's params (the server's English is
    // only a fallback): the balance and hourly cost as amounts of the page.
    const lowText = en.notifications.kinds.billing.funds_low;
    assert.equal(plain(await low.locator('.bell-item-title').textContent()), lowText.title);
    const money = '[\\d,]+\\.\\d{2,6}';
    const lowBody = lowText.body
      .replace(/[.()]/g, '\\$&')
      .replace('{{balance}}', money)
      .replace('{{perHour}}', money)
      .replace('{{rentalId}}', rentalId);
    assert.match(plain(await low.locator('.bell-item-body').textContent()), new RegExp(`^${lowBody}$`));
    console.log(`screenshot: ${await saveScreenshot(customer, 'e2e-funds-low.png')}`);

    at('the rental page meters the charge against the funds left');
    // Issue 29 point 10: the cost meter. What the rental was charged and
    // what the funds have left add up to the credit (nothing else spends
    // them), and the bar draws the charge's part of it.
    const meter = customer.getByTestId('rental-meter');
    await meter.waitFor();
    await customer.waitForFunction((credited) => {
      const toMicros = (s) => {
        const [w, f = ''] = s.replace('-', '').split('.');
        return (s.startsWith('-') ? -1n : 1n) * (BigInt(w) * 1_000_000n + BigInt(f.padEnd(6, '0')));
      };
      const charged = document.querySelector('[data-testid="rental-cost"]')?.getAttribute('data-charged');
      const balance = document.querySelector('[data-testid="rental-meter"]')?.getAttribute('data-balance');
      return charged && balance && toMicros(charged) > 0n && toMicros(charged) + toMicros(balance) === toMicros(credited);
    }, listing.pricePerHour, { timeout: RUN_TIMEOUT() });
    const charged = micros(await customer.getByTestId('rental-cost').getAttribute('data-charged'));
    const left = micros(await meter.getAttribute('data-balance'));
    assert.equal(Number(await meter.getAttribute('data-fill')), Number((charged * 100_000n) / (charged + left)) / 1000, 'the bar is the charge over the charge and the funds left');
    const drawn = await meter.getByTestId('rental-meter-bar').locator('.bar-fill').boundingBox();
    assert.ok(drawn && drawn.width >= 3, `a charge draws at least a sliver: ${JSON.stringify(drawn)}`);
    assert.match(plain(await meter.textContent()), /^Charged for this rental: [\d,.]+ USDC · left in your funds: [\d,.]+ USDC\. At what your running rentals cost, they last until .+\.$/);
    assert.notEqual(await meter.getAttribute('data-runs-out-at'), '', 'the funds run out at a time');
    console.log(`screenshot: ${await saveScreenshot(customer, 'e2e-funds-meter.png')}`);

    at('the Rentals page shows the balance being spent');
    await customer.getByTestId('notification-bell').click();
    await navigate(customer, 'nav-rentals');
    await customer.getByTestId('funds').waitFor();
    const running = customer.getByTestId('funds-running');
    await running.waitFor();
    assert.match(plain(await running.textContent()), /^Your running rentals cost [\d,.]+ USDC per hour: at that rate the balance runs out on .+\.$/);
    assert.ok(Number(await customer.getByTestId('funds').getAttribute('data-balance')) < Number(listing.pricePerHour), 'less than an hour is left');

    at('the provider sets a monthly payout to a new wallet');
    provider = await openPage(browser, { errors: pageErrors, contextOptions: DESKTOP, name: 'provider' });
    await logInThroughForm(provider, server, PROVIDER);
    await navigate(provider, 'nav-payouts');
    await provider.getByTestId('payouts-page').waitFor();
    if ((await provider.getByTestId('payout-method-form').count()) === 0) await provider.getByTestId('payout-method-change').click();
    const form = provider.getByTestId('payout-method-form');
    await form.waitFor();
    const wallet = solanaWallet();
    await form.getByTestId('field-schedule-MONTHLY').check();
    await form.getByTestId('field-destination-SOLANA').check();
    await form.getByTestId('field-solanaAddress').fill(wallet);
    await form.getByTestId('field-payoutPassword').fill(PROVIDER.password);
    await form.getByTestId('payout-method-save').click();
    await provider.getByTestId('payout-method-saved').waitFor();
    assert.equal(plain(await provider.getByTestId('payout-method-schedule').textContent()), en.payoutSchedule.MONTHLY);

    at('the provider asks to be paid now: held for the new wallet\'s 1 s cooling-off, then a manual payout, pending on the Payouts tab');
    const pendingRow = provider.locator(`[data-testid="payouts-table"] [data-testid="payout-row"][data-state="PENDING"][data-kind="MANUAL"]`);
    const payNow = provider.getByTestId('pay-now-button');
    const done = provider.getByTestId('pay-now-done');
    const payNowRefused = provider.locator('[data-testid="pay-now"] [role="alert"]');
    const deadline = Date.now() + RUN_TIMEOUT();
    for (;;) {
      await payNow.click();
      await done.or(payNowRefused).first().waitFor();
      if (await done.isVisible()) break;
      assert.equal(plain(await payNowRefused.first().textContent()), en.userErrors.method.INVALID_STATE, 'only the cooling-off holds it');
      assert.ok(Date.now() < deadline, `the cooling-off ends within ${RUN_TIMEOUT() / 1000} s`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    await pendingRow.waitFor();
    const payoutId = await pendingRow.getAttribute('data-id');
    const amount = await pendingRow.getAttribute('data-amount');
    assert.ok(Number(amount) > 0, `the payout pays the period's earnings: ${amount}`);
    assert.ok((await pendingRow.textContent()).includes(wallet), 'to the new wallet');
    assert.equal(plain(await pendingRow.getByTestId('payout-state').textContent()), en.payoutState.PENDING);
    console.log(`payout ${payoutId}: ${amount} USDC, manual, pending`);
    // Issue 29 point 10: payouts by week. Pending, it is in no week yet.
    const weeks = provider.getByTestId('payouts-weeks');
    const paidBefore = { total: await weeks.getAttribute('data-total'), thisWeek: await weeks.getAttribute('data-this-week'), count: Number(await weeks.getAttribute('data-count')) };

    at('the admin marks it paid with a reference');
    const reference = `SOL-TX-${stamp}`;
    await navigate(admin, 'nav-admin-payouts');
    await admin.getByTestId('admin-payouts-page').waitFor();
    await admin.getByTestId('payouts-tab-PENDING').click();
    await admin.waitForURL(/state=PENDING$/);
    const adminRow = admin.locator(`[data-testid="admin-payouts-table"] [data-testid="payout-row"][data-id="${payoutId}"]`);
    await adminRow.waitFor();
    assert.equal(await adminRow.getAttribute('data-kind'), 'MANUAL');
    // Issue 29 point 8: each row names its provider, linked to its
    // application; the totals count every state, the tabs too.
    const payee = adminRow.getByTestId('payout-provider');
    assert.equal(plain(await payee.textContent()), 'Lisbon GPU Works', "the demo provider's name");
    assert.match(await payee.getAttribute('href'), /^\/admin\/applications\/\d+$/, 'linked to its application');
    const pendingTotal = admin.locator('[data-testid="payout-total"][data-state="PENDING"]');
    const pendingRows = await admin.locator('[data-testid="admin-payouts-table"] [data-testid="payout-row"]').count();
    // The Pending tab lists only pending payouts, never the last tab's rows
    // while its own load (a busy CI once counted the All tab's 22 here).
    assert.equal(await admin.locator('[data-testid="admin-payouts-table"] [data-testid="payout-row"][data-state="PENDING"]').count(), pendingRows, 'the Pending tab lists only pending payouts');
    assert.equal(Number(await pendingTotal.getAttribute('data-count')), pendingRows, 'the Pending total counts the Pending tab\'s rows');
    assert.equal(plain(await admin.getByTestId('payouts-tab-PENDING').textContent()), `${en.payoutState.PENDING} (${pendingRows})`);
    assert.equal(await admin.getByTestId('payout-total').count(), 4, 'a total for every state');
    await adminRow.getByTestId('settle').locator('summary').click();
    const settle = adminRow.getByTestId('settle-paid');
    await settle.getByTestId('field-paidReference').fill(reference);
    await settle.getByTestId('settle-paid-submit').click();
    // Paid, it leaves the Pending tab and is listed under Paid.
    await admin.waitForFunction((id) => !document.querySelector(`[data-testid="payout-row"][data-id="${id}"][data-state="PENDING"]`), payoutId);
    await admin.getByTestId('payouts-tab-PAID').click();
    await admin.waitForURL(/state=PAID$/);
    const adminPaid = admin.locator(`[data-testid="admin-payouts-table"] [data-testid="payout-row"][data-id="${payoutId}"]`);
    await adminPaid.waitFor();
    assert.equal(await adminPaid.getAttribute('data-state'), 'PAID');
    assert.equal(plain(await adminPaid.getByTestId('payout-paid-reference').textContent()), en.payouts.table.paidReference.replace('{{reference}}', reference));
    assert.equal(await adminPaid.getByTestId('settle').count(), 0, 'a paid payout is not settled again');
    console.log(`screenshot: ${await saveScreenshot(admin, 'e2e-funds-admin-paid.png')}`);

    at('the provider\'s Payouts tab shows it paid with that reference');
    await provider.reload();
    const paidRow = provider.locator(`[data-testid="payouts-table"] [data-testid="payout-row"][data-id="${payoutId}"]`);
    await paidRow.waitFor();
    assert.equal(await paidRow.getAttribute('data-state'), 'PAID');
    assert.equal(plain(await paidRow.getByTestId('payout-state').textContent()), en.payoutState.PAID);
    assert.equal(plain(await paidRow.getByTestId('payout-paid-reference').textContent()), en.payouts.table.paidReference.replace('{{reference}}', reference));
    assert.ok(plain(await paidRow.textContent()).includes(en.payoutKind.MANUAL), 'sent by GPUnex staff');
    // Paid now, it is in this week's bar (the chart's last) and the total.
    const paidAfter = { total: await weeks.getAttribute('data-total'), thisWeek: await weeks.getAttribute('data-this-week'), count: Number(await weeks.getAttribute('data-count')) };
    assert.equal(micros(paidAfter.thisWeek), micros(paidBefore.thisWeek) + micros(amount), "this week's bar grew by the payout");
    assert.equal(micros(paidAfter.total), micros(paidBefore.total) + micros(amount), 'so did the total');
    assert.equal(paidAfter.count, paidBefore.count + 1);
    const weeksChart = weeks.getByTestId('payouts-weeks-chart');
    assert.equal(await weeksChart.getAttribute('data-points'), '12', 'twelve weeks');
    assert.match(plain(await weeks.getByTestId('payouts-weeks-total').textContent()), /^Paid in the last 12 weeks: [\d,.]+ USDC\. Payouts: \d+\.$/);
    await weeksChart.scrollIntoViewIfNeeded();
    console.log(`screenshot: ${await saveScreenshot(provider, 'e2e-funds-provider-paid.png')}`);

    for (const page of [customer, admin, provider]) assert.equal(await page.getByTestId('error-notice').count(), 0, 'no request failed');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the pages');
  } catch (err) {
    throw await explainFailure(err, {
      step,
      screenshots: { 'e2e-funds-customer-failure.png': customer, 'e2e-funds-admin-failure.png': admin, 'e2e-funds-provider-failure.png': provider },
      logs: { 'server output': server.output() },
    });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
});
