// The foundation end to end: a real gpunex server, a real Chromium, the built
// SPA as the server embeds it. One new user goes through sign-up (and the
// link of the confirmation email, read from the server's mail outbox), the live
// welcome notification, the account page, Arabic (right to left), log-out
// and log-in; the last screen is saved as artifacts/e2e-foundation.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { confirmationLink } from './mail.mjs';
import { frontendDir, startServer } from './server.mjs';
import { patience, testPatience } from './patience.mjs';
import { navigate } from './session.mjs';

const locale = (name) =>
  JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', `${name}.json`), 'utf8'));
const en = locale('en');
const ar = locale('ar');

const STEP_TIMEOUT = patience;

test('foundation: sign up, live welcome, account, Arabic, log out, log in', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  let page;
  let step = 'start';
  const pageErrors = [];
  const sockets = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  try {
    browser = await launchBrowser();
    page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport: { width: 1280, height: 860 } } });
    // Record every GraphQL WebSocket and the subscriptions sent on it, to
    // check that the bell subscribes and that log-in opens a new connection.
    page.on('websocket', (ws) => {
      const socket = { url: ws.url(), subscribed: [], closed: false };
      sockets.push(socket);
      ws.on('framesent', ({ payload }) => {
        try {
          const msg = JSON.parse(String(payload));
          if (msg.type === 'subscribe') socket.subscribed.push(msg.payload?.operationName ?? msg.payload?.query);
        } catch {
          // not JSON: not ours to judge
        }
      });
      ws.on('close', () => {
        socket.closed = true;
      });
    });
    const byId = (id) => page.getByTestId(id);
    const text = async (id) => ((await byId(id).textContent()) ?? '').trim();

    at('home page in English, left to right');
    await page.goto(`${server.url}/`);
    await byId('home-page').waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.dir), 'ltr');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    assert.equal(await byId('home-page').locator('h1').textContent(), en.home.title);
    assert.equal(await byId('notification-bell').count(), 0, 'no bell while signed out');

    at('sign up through the form');
    const stamp = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const user = { name: `Ada Lovelace ${stamp.slice(-5)}`, email: `ada.${stamp}@example.com`, password: 'analytical-engine-1843' };
    await navigate(page, 'nav-signup');
    await byId('signup-page').waitFor();
    await byId('field-name').fill(user.name);
    await byId('field-email').fill(user.email);
    await byId('field-password').fill('short');
    await byId('signup-submit').click();
    // userErrors come back by field and code and are shown at the field.
    await byId('field-password-error').waitFor();
    assert.equal(await text('field-password-error'), en.userErrors.password.TOO_SHORT);
    await byId('field-password').fill(user.password);
    await byId('signup-submit').click();
    // The answer is the same whether or not the address has an account:
    // check your email, and no session yet.
    await byId('signup-sent').waitFor();
    assert.ok((await text('signup-sent-body')).replace(/[\u2068\u2069]/g, '').includes(user.email), 'names the address');
    assert.equal(await byId('notification-bell').count(), 0, 'not signed in before the link');

    at('follow the emailed link: signed in, on to the account');
    const link = await confirmationLink(server.dataDir, user.email);
    assert.ok(link.startsWith(`${server.url}/confirm-email?token=gpx_c_`), `the link: ${link}`);
    await page.goto(link);
    // A marker on window survives only if the page never reloads.
    await page.evaluate(() => {
      window.__gpunexNoReload = true;
    });
    await byId('account-page').waitFor();
    await page.waitForURL(/\/account$/); // the token leaves the address bar

    at('the link works once');
    const reused = await openPage(browser, { errors: pageErrors, name: 'used link' });
    await reused.goto(link);
    await reused.getByTestId('confirm-email-error').waitFor();
    assert.equal(await reused.getByTestId('confirm-email-error').getAttribute('data-code'), 'INVALID');
    assert.equal((await reused.getByTestId('confirm-email-error').textContent()).trim(), en.userErrors.token.INVALID);
    await reused.context().close();

    at('welcome notification arrives in the bell without reload');
    await page.waitForFunction(
      () => document.querySelector('[data-testid="notification-unread-count"]')?.textContent?.trim() === '1',
      null,
      { timeout: STEP_TIMEOUT() },
    );
    await byId('notification-bell').click();
    await byId('notification-panel').waitFor();
    const items = byId('notification-item');
    assert.equal(await items.count(), 1, 'exactly the welcome notification');
    assert.equal(await items.first().getAttribute('data-kind'), 'WELCOME');
    assert.equal(await items.first().getAttribute('data-unread'), 'true');
    // Interpolated values are wrapped in Unicode isolates (U+2068..U+2069).
    const welcome = (await items.first().textContent()).replace(/[\u2068\u2069]/g, '');
    assert.ok(welcome.includes(`Welcome to GPUnex, ${user.name}!`), `welcome text: ${welcome}`);
    assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, 'the page was not reloaded');
    const firstSocket = sockets.find((s) => s.subscribed.includes('NotificationAdded'));
    assert.ok(firstSocket, `the bell subscribed to notificationAdded over a WebSocket; sockets: ${JSON.stringify(sockets)}`);
    assert.match(firstSocket.url, /^ws:\/\/127\.0\.0\.1:\d+\/graphql$/);
    await page.keyboard.press('Escape');

    at('account page after a full load (cookie session, history fallback)');
    await page.goto(`${server.url}/account`);
    await byId('account-page').waitFor();
    assert.equal(await text('account-name'), user.name);
    assert.equal(await text('account-email'), user.email);
    assert.equal(await text('account-title'), en.account.title);
    assert.ok((await text('account-member-since')).length > 0, 'member since is shown');

    at('unknown path shows the 404 page');
    await page.goto(`${server.url}/no/such/page`);
    await byId('not-found-page').waitFor();
    await navigate(page, 'nav-account');
    await byId('account-page').waitFor();

    at('switch to Arabic: right to left, Arabic strings, remembered');
    await byId('language-switcher').selectOption('ar');
    await page.waitForFunction(() => document.documentElement.dir === 'rtl');
    assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'ar');
    assert.equal(await text('account-title'), ar.account.title);
    assert.equal(await text('logout-button'), ar.account.logOut);
    await page.reload();
    await byId('account-page').waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl', 'the choice survives a reload');
    assert.equal(await text('account-title'), ar.account.title);

    at('log out');
    const socketsBeforeLogIn = sockets.length;
    await byId('logout-button').click();
    await byId('login-page').waitFor();
    assert.equal(await byId('notification-bell').count(), 0, 'no bell after log-out');
    await page.goto(`${server.url}/account`);
    await byId('login-page').waitFor();
    await page.waitForURL(/\/login$/); // signed-out /account goes to /login

    at('log back in');
    await byId('field-email').fill(user.email);
    await byId('field-password').fill('not-the-password');
    await byId('login-submit').click();
    await page.getByText(ar.userErrors.INVALID_CREDENTIALS).waitFor();
    await byId('field-password').fill(user.password);
    await byId('login-submit').click();
    await byId('account-page').waitFor();
    assert.equal(await text('account-name'), user.name);
    assert.equal(await text('account-email'), user.email);
    await page.waitForFunction(
      () => document.querySelector('[data-testid="notification-unread-count"]')?.textContent?.trim() === '1',
    );
    const newSocket = sockets.slice(socketsBeforeLogIn).find((s) => s.subscribed.includes('NotificationAdded'));
    assert.ok(newSocket, 'log-in opened a new WebSocket for the subscription');

    at('mark all as read');
    await byId('notification-bell').click();
    await byId('notification-panel').waitFor();
    await byId('notifications-mark-all-read').click();
    await byId('notification-unread-count').waitFor({ state: 'detached' });
    assert.equal(await byId('notification-item').first().getAttribute('data-unread'), 'false');

    at('screenshot');
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-foundation.png')}`);

    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (err) {
    throw await explainFailure(err, {
      step,
      screenshots: { 'e2e-foundation-failure.png': page },
      logs: { 'server output': server.output() },
    });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
});
