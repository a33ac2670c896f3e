// The acceptance test of issue 26, end to end on each database (SQLite,
// and PostgreSQL when GPUNEX_TEST_DATABASE_URL is set, as make test sets
// it): gpunex serve with the demo world follows deposits on the Solana node
// double (bin/solana-double, every 1 s) and meters every 2 s; Chromium on
// the embedded SPA.
//
// Twice per database, once in English at 1366 px and once in Arabic (right
// to left) at 390 px, a new customer signs up through the form and
// confirms the address, asks the Funds page for a deposit of 25 USDC and
// reads its Solana Pay link; the test pays that link from the double's
// funded wallet (a real TransferChecked naming the request's reference,
// held at confirmed) and the page shows it SEEN, then, once the test
// finalizes it, CREDITED with the balance at 25 USDC and the bell's
// deposit notice, all without a reload. The customer rents the cheapest
// free demo listing from the Marketplace, watches the rental page's charge
// grow from one metering tick to the next, stops it, and reads the final
// charge (once the meter has billed to the end) on the rental page, in the
// Rentals list and on the statement, whose rental charges add up to it and
// whose balance is the deposit less it. Every page is no wider than the
// screen. Screens: artifacts/e2e-deposit-<database>-<language>-*.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { confirmationLink } from './mail.mjs';
import { databases, frontendDir, startServer } from './server.mjs';
import { graphql, navigate } from './session.mjs';
import { startSolanaDouble } from './solana.mjs';
import { patience, testPatience } from './patience.mjs';
import { micros } from './usdc.mjs';

const locales = {
  en: JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', 'en.json'), 'utf8')),
  ar: JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', 'ar.json'), 'utf8')),
};

// Deposits are followed every 1 s and rentals metered every 2 s: what they
// cause shows within this, even on a busy machine.
const RUN_TIMEOUT = patience;
const DEPOSIT = '25';
const plain = (s) => (s ?? '').replace(/[\u2068\u2069]/g, '').trim();

const PASSES = [
  { language: 'en', viewport: { width: 1366, height: 900 }, dir: 'ltr' },
  { language: 'ar', viewport: { width: 390, height: 844 }, dir: 'rtl' },
];

/** cheapestListing is the cheapest listing with a free GPU and no maintenance planned. */
async function cheapestListing(context, server) {
  const market = await graphql(context, server, 'query($filter: MarketplaceFilter) { marketplace(filter: $filter, first: 50) { edges { node { id modelKey gpuCount pricePerHour nextMaintenanceAt } } } }', { filter: {} });
  const free = market.marketplace.edges
    .map((e) => e.node)
    .filter((l) => !l.nextMaintenanceAt && l.gpuCount > 0 && micros(l.pricePerHour) < micros(DEPOSIT))
    .sort((a, b) => Number(a.pricePerHour) - Number(b.pricePerHour));
  assert.ok(free.length > 0, `a free listing under ${DEPOSIT} USDC/h: ${JSON.stringify(market)}`);
  return free[0];
}

for (const database of databases()) {
  test(`deposit to statement on ${database}: a new customer deposits USDC through Solana Pay, sees it credited live, rents, watches the cost grow, stops and reads the same final charge on the rental page, the Rentals list and the statement, in English at 1366 px and in Arabic at 390 px`, { timeout: testPatience() }, async () => {
    const double = await startSolanaDouble();
    let server;
    let browser;
    let page;
    let step = 'start';
    const pageErrors = [];
    const at = (label) => {
      step = label;
      console.log(`step (${database}): ${label}`);
    };

    try {
      server = await startServer({ database, extraArgs: [...double.serverArgs, '--deposit-follow-every', '1s', '--metering-every', '2s'] });
      browser = await launchBrowser();

      for (const { language, viewport, dir } of PASSES) {
        const tr = locales[language];
        const shot = (name) => saveScreenshot(page, `e2e-deposit-${database}-${language}-${name}.png`);
        const fitsTheScreen = async (what) => {
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(width <= viewport.width, `${what} in ${language}: ${width} px wide on a ${viewport.width} px screen`);
        };
        const inLanguage = async () => {
          await page.waitForFunction(([lng, d]) => document.documentElement.lang === lng && document.documentElement.dir === d, [language, dir]);
        };

        at(`${language} at ${viewport.width} px: a new customer signs up and confirms the address`);
        page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport }, name: `${language} customer` });
        await page.goto(`${server.url}/`);
        await page.evaluate((lng) => window.localStorage.setItem('gpunex.language', lng), language);
        const stamp = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
        const customer = { name: `Dana Deposit ${stamp.slice(-5)}`, email: `dana.${language}.${stamp}@example.com`, password: 'deposits-on-solana-2026' };
        await page.goto(`${server.url}/signup`);
        await inLanguage();
        await page.getByTestId('field-name').fill(customer.name);
        await page.getByTestId('field-email').fill(customer.email);
        await page.getByTestId('field-password').fill(customer.password);
        await page.getByTestId('signup-submit').click();
        await page.getByTestId('signup-sent').waitFor();
        await page.goto(await confirmationLink(server.dataDir, customer.email));
        await page.getByTestId('account-page').waitFor();

        at(`${language}: the Funds page makes a deposit request of ${DEPOSIT} USDC with its Solana Pay link`);
        await page.goto(`${server.url}/funds`);
        await page.getByTestId('funds-page').waitFor();
        await inLanguage();
        await page.getByTestId('funds').waitFor();
        assert.equal(Number(await page.getByTestId('funds').getAttribute('data-balance')), 0, 'a new customer has no funds');
        await page.getByTestId('deposit').getByTestId('field-amount').fill(DEPOSIT);
        await page.getByTestId('deposit-submit').click();
        const request = page.getByTestId('deposit-request');
        await request.waitFor();
        assert.equal(await request.getAttribute('data-state'), 'WAITING');
        const depositId = await request.getAttribute('data-id');
        const link = await page.getByTestId('deposit-qr').getAttribute('href');
        assert.match(link, /^solana:[1-9A-HJ-NP-Za-km-z]+\?/, 'a Solana Pay transfer request');
        const asked = new URL(link).searchParams;
        assert.equal(micros(asked.get('amount')), micros(DEPOSIT), 'the link asks for the amount');
        assert.equal(asked.get('spl-token'), double.mint, 'in USDC');
        assert.equal(asked.get('reference'), await request.getAttribute('data-reference'), 'naming the request\'s reference');
        assert.equal(await page.getByTestId('deposit-open-wallet').getAttribute('href'), link);
        await fitsTheScreen('the Funds page');
        console.log(`screenshot: ${await shot('request')}`);
        await page.evaluate(() => {
          window.__gpunexNoReload = true;
        });

        at(`${language}: the wallet pays the link; the page shows the transfer seen, then credited, live`);
        const signature = await double.pay(link, { hold: true });
        console.log(`transaction ${signature}`);
        await page.locator('[data-testid="deposit-request"][data-state="SEEN"]').waitFor({ timeout: RUN_TIMEOUT() });
        assert.equal(plain(await page.getByTestId('deposit-state').locator('[data-state]').textContent()), tr.deposit.state.SEEN);
        assert.equal(Number(await page.getByTestId('funds').getAttribute('data-balance')), 0, 'nothing is credited before the transfer is finalized');
        console.log(`screenshot: ${await shot('seen')}`);
        await double.finalize(signature);
        // A credited request leaves the card for the deposits' history.
        const credited = page.locator(`[data-testid="deposit-row"][data-id="${depositId}"][data-state="CREDITED"]`);
        await credited.waitFor({ timeout: RUN_TIMEOUT() });
        assert.equal(micros(await credited.getAttribute('data-credited')), micros(DEPOSIT));
        assert.equal(plain(await credited.locator('.status[data-state]').first().textContent()), tr.deposit.state.CREDITED);
        assert.equal(await page.getByTestId('deposit-request').count(), 0, 'no request open any more');
        await page.waitForFunction((want) => Number(document.querySelector('[data-testid="funds"]')?.getAttribute('data-balance')) === want, Number(DEPOSIT), { timeout: RUN_TIMEOUT() });

        at(`${language}: the bell has the deposit notice`);
        await page.getByTestId('notification-unread-count').waitFor({ timeout: RUN_TIMEOUT() });
        await page.getByTestId('notification-bell').click();
        const notice = page.locator('[data-testid="notification-item"][data-kind="deposit.credited"]');
        await notice.waitFor({ timeout: RUN_TIMEOUT() });
        assert.equal(plain(await notice.locator('.bell-item-title').textContent()), tr.notifications.kinds.deposit.credited.title);
        assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, 'the deposit was followed without a reload');
        console.log(`screenshot: ${await shot('credited')}`);
        await page.getByTestId('notification-bell').click();

        at(`${language}: the customer rents the cheapest free listing from the Marketplace`);
        const listing = await cheapestListing(page.context(), server);
        console.log(`listing ${listing.id}: ${listing.modelKey} at ${listing.pricePerHour} USDC/h`);
        await navigate(page, 'nav-marketplace');
        await page.getByTestId('marketplace-page').waitFor();
        await page.waitForFunction(() => document.querySelector('[data-testid="marketplace-page"]')?.getAttribute('data-loaded') === 'true');
        const row = page.locator(`[data-testid="listing"][data-id="${listing.id}"]`);
        await row.getByTestId('listing-rent').click();
        const dialog = page.getByTestId('rent-dialog');
        await dialog.waitFor();
        await dialog.getByTestId('field-gpuCount').fill('1');
        await dialog.getByTestId('field-image').fill('busybox');
        await dialog.getByTestId('field-command').fill('sleep 600');
        await dialog.getByTestId('rent-submit').click();
        await page.waitForURL(/\/rentals\/[^/]+$/);
        const rental = page.getByTestId('rental-page');
        await rental.waitFor();
        const rentalId = await rental.getAttribute('data-id');
        console.log(`rental ${rentalId}`);
        await page.evaluate(() => {
          window.__gpunexNoReload = true;
        });

        at(`${language}: the rental runs and its charge grows from one metering tick to the next, live`);
        await page.waitForFunction(() => document.querySelector('[data-testid="rental-page"]')?.getAttribute('data-state') === 'RUNNING', undefined, { timeout: RUN_TIMEOUT() });
        const cost = rental.getByTestId('rental-cost');
        await page.waitForFunction(() => Number(document.querySelector('[data-testid="rental-cost"]')?.getAttribute('data-charged')) > 0, undefined, { timeout: RUN_TIMEOUT() });
        const first = await cost.getAttribute('data-charged');
        await rental.getByTestId('rental-estimate').waitFor();
        await fitsTheScreen('the running rental page');
        console.log(`screenshot: ${await shot('running')}`);
        await page.waitForFunction(
          (before) => Number(document.querySelector('[data-testid="rental-cost"]')?.getAttribute('data-charged')) > before,
          Number(first),
          { timeout: RUN_TIMEOUT() },
        );
        const second = await cost.getAttribute('data-charged');
        console.log(`charged ${first}, then ${second} USDC`);
        assert.ok(micros(second) > micros(first), 'the charge grew');

        at(`${language}: the customer stops the rental; the meter bills it to its end`);
        await rental.getByTestId('rental-stop').click();
        await rental.getByTestId('rental-stop-confirm').click();
        await page.waitForFunction(() => document.querySelector('[data-testid="rental-page"]')?.getAttribute('data-state') === 'STOPPED', undefined, { timeout: RUN_TIMEOUT() });
        // The charge is final once the meter has billed to the end (billedUntil
        // reaches endedAt): asked of the API from the page, as the page asks.
        await page.waitForFunction(
          async (id) => {
            const res = await fetch('/graphql', {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'X-GPUnex-CSRF': '1' },
              body: JSON.stringify({ query: 'query($id: ID!) { rental(id: $id) { endedAt billedUntil } }', variables: { id } }),
            });
            const r = (await res.json()).data?.rental;
            return Boolean(r?.endedAt && r.billedUntil && Date.parse(r.billedUntil) >= Date.parse(r.endedAt));
          },
          rentalId,
          { timeout: RUN_TIMEOUT(), polling: 500 },
        );
        const { rental: billed } = await graphql(page.context(), server, 'query($id: ID!) { rental(id: $id) { charged billedSeconds } }', { id: rentalId });
        assert.ok(micros(billed.charged) >= micros(second), 'the final charge is at least what was charged while it ran');
        await page.waitForFunction((want) => document.querySelector('[data-testid="rental-cost"]')?.getAttribute('data-charged') === want, billed.charged, { timeout: RUN_TIMEOUT() });

        at(`${language}: the rental page reads the final charge`);
        const charged = await cost.getAttribute('data-charged');
        assert.equal(micros(charged), micros(billed.charged));
        assert.equal(await rental.getByTestId('rental-end').getAttribute('data-end'), 'STOPPED_BY_YOU');
        assert.equal(plain(await rental.getByTestId('rental-end').textContent()), tr.rentals.end.STOPPED_BY_YOU);
        assert.equal(await rental.getByTestId('rental-estimate').count(), 0, 'no estimate once ended');
        const finalText = plain(await rental.getByTestId('rental-charged').textContent());
        assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, 'the charge arrived without a reload');
        await fitsTheScreen('the stopped rental page');
        console.log(`final charge ${charged} USDC (${billed.billedSeconds} s): "${finalText}"`);
        console.log(`screenshot: ${await shot('rental')}`);

        at(`${language}: the Rentals list shows the same final charge`);
        await page.goto(`${server.url}/rentals`);
        await page.getByTestId('rentals-page').waitFor();
        await inLanguage();
        const listed = page.locator(`[data-testid="rental-row"][data-id="${rentalId}"][data-state="STOPPED"]`);
        await listed.waitFor();
        assert.equal(plain(await listed.getByTestId('rental-row-cost').textContent()), finalText, 'the list shows the rental page\'s final charge');
        await page.getByTestId('rentals-month-total').waitFor();
        assert.equal(micros(await page.getByTestId('rentals-month-total').getAttribute('data-charged')), micros(charged), 'the month\'s total is this one rental');
        await fitsTheScreen('the Rentals list');
        console.log(`screenshot: ${await shot('rentals')}`);

        at(`${language}: the statement: the deposit, rental charges adding up to the final charge, the balance the deposit less it`);
        await page.getByTestId('rentals-statement-link').click();
        const statement = page.getByTestId('statement-page');
        await statement.waitFor();
        await page.getByTestId('statement-line').first().waitFor();
        assert.equal(await page.getByTestId('statement-next').count(), 0, 'one page of lines');
        const lines = await page.getByTestId('statement-line').evaluateAll((rows) => rows.map((r) => ({ kind: r.getAttribute('data-kind'), amount: r.getAttribute('data-amount'), balance: r.getAttribute('data-balance') })));
        const deposits = lines.filter((l) => l.kind === 'DEPOSIT');
        assert.deepEqual(deposits.map((l) => micros(l.amount)), [micros(DEPOSIT)], 'one deposit line of the amount paid');
        const rentalCharges = lines.filter((l) => l.kind === 'RENTAL_CHARGE').reduce((sum, l) => sum + micros(l.amount), 0n);
        assert.equal(rentalCharges, -micros(charged), 'the rental charges add up to the final charge');
        const balance = micros(DEPOSIT) - micros(charged);
        assert.equal(micros(lines.at(-1).balance), balance, 'the running balance ends at the deposit less the charge');
        assert.equal(micros(await statement.getAttribute('data-balance')), balance);
        await fitsTheScreen('the statement');
        console.log(`screenshot: ${await shot('statement')}`);
        assert.deepEqual(pageErrors, [], 'no uncaught page errors');

        await page.context().close();
        page = undefined;
      }
    } catch (err) {
      throw await explainFailure(err, {
        step,
        screenshots: { [`e2e-deposit-${database}-failure.png`]: page },
        logs: { 'server output': server?.output() ?? '', 'solana-double output': double.output() },
      });
    } finally {
      await browser?.close().catch(() => {});
      await server?.stop();
      await double.stop();
    }
  });
}
