// Issue 29, points 1 and 2, in Chromium against a real gpunex server with
// the demo world: the demo provider and the admin find every section from
// one header row on a 1366 × 900 desktop and from one menu button on a
// 390 × 844 phone, in English and in Arabic (right to left); the current
// section is named (the phone's button says which page is open, the
// desktop's group is marked); menus close on a choice, on Escape and on a
// click outside. The notification panel fits the screen both ways.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { frontendDir, startServer } from './server.mjs';
import { logInThroughForm } from './session.mjs';
import { patience, testPatience } from './patience.mjs';

const locale = (name) => JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', `${name}.json`), 'utf8'));
const STEP_TIMEOUT = patience;
const PASSWORD = 'gpunex-demo';
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

/** box returns a locator's box, failing when it has none (not shown). */
async function box(locator, what) {
  const b = await locator.boundingBox();
  assert.ok(b, `${what} is not shown`);
  return b;
}

// A header item's row is told by its middle, in 8 px steps: a menu's
// button and a link are not the same height.

/** inside fails unless the box lies within [0, width] across. */
function inside(b, width, what) {
  assert.ok(b.x >= -0.5 && b.x + b.width <= width + 0.5, `${what} runs off the screen: x ${b.x.toFixed(1)} to ${(b.x + b.width).toFixed(1)} of ${width}`);
}

async function setLanguage(page, lng) {
  await page.getByTestId('language-switcher').selectOption(lng);
  await page.waitForFunction((l) => document.documentElement.lang === l, lng);
}

test('navigation: one row on a desktop, one menu on a phone, the section named, in English and Arabic', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  const pages = {};
  let step = 'start';
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  try {
    browser = await launchBrowser();
    for (const lng of ['en', 'ar']) {
      const t = locale(lng).nav;

      at(`${lng}: the provider's desktop header is one row`);
      const desk = await openPage(browser, { errors: pageErrors, contextOptions: { viewport: DESKTOP }, name: `desktop-${lng}` });
      pages[`desktop-${lng}`] = desk;
      await logInThroughForm(desk, server, { email: 'provider@gpunex.demo', password: PASSWORD });
      await setLanguage(desk, lng);
      await desk.goto(`${server.url}/provider/overview`);
      await desk.getByTestId('gpu-row').first().waitFor();
      const row = desk.locator('.nav-row > li');
      const tops = new Set();
      for (const item of await row.all()) {
        const b = await box(item, 'a header item');
        inside(b, DESKTOP.width, `${lng}: header item "${(await item.textContent()).trim()}"`);
        tops.add(Math.round((b.y + b.height / 2) / 8));
      }
      assert.equal(tops.size, 1, `${lng}: the header's items sit on ${tops.size} rows`);
      assert.ok((await box(desk.getByTestId('header'), 'the header')).height <= 80, `${lng}: the header is one row high`);
      // Fleet is marked: Overview is one of its pages.
      assert.match(await desk.getByTestId('nav-group-fleet').getAttribute('class'), /\bactive\b/);
      assert.doesNotMatch(await desk.getByTestId('nav-group-money').getAttribute('class'), /\bactive\b/);

      at(`${lng}: Money opens under its name, Escape and a click outside close it`);
      await desk.getByTestId('nav-group-money').click();
      const earnings = desk.getByTestId('nav-earnings');
      await earnings.waitFor();
      assert.equal((await earnings.textContent()).trim(), t.earnings);
      inside(await box(earnings, 'Earnings in the Money menu'), DESKTOP.width, `${lng}: the Money menu`);
      await saveScreenshot(desk, `navigation-desktop-${lng}.png`);
      await desk.keyboard.press('Escape');
      await earnings.waitFor({ state: 'hidden' });
      await desk.getByTestId('nav-group-money').click();
      await earnings.waitFor();
      await desk.mouse.click(5, DESKTOP.height - 5); // the page's margin, outside the menu
      await earnings.waitFor({ state: 'hidden' });

      at(`${lng}: a choice in the menu opens the page, closes the menu and marks Money`);
      await desk.getByTestId('nav-group-money').click();
      await earnings.click();
      await desk.waitForURL(/\/provider\/earnings$/);
      await desk.getByTestId('earnings-page').waitFor();
      await earnings.waitFor({ state: 'hidden' });
      assert.match(await desk.getByTestId('nav-group-money').getAttribute('class'), /\bactive\b/);
      assert.doesNotMatch(await desk.getByTestId('nav-group-fleet').getAttribute('class'), /\bactive\b/);

      at(`${lng}: the notification panel fits the desktop`);
      await desk.getByTestId('notification-bell').click();
      inside(await box(desk.getByTestId('notification-panel'), 'the notification panel'), DESKTOP.width, `${lng}: the notification panel`);
      await desk.keyboard.press('Escape');

      at(`${lng}: the admin's desktop header is one row too`);
      const admin = await openPage(browser, { errors: pageErrors, contextOptions: { viewport: DESKTOP }, name: `admin-${lng}` });
      pages[`admin-${lng}`] = admin;
      await logInThroughForm(admin, server, { email: 'admin@gpunex.demo', password: PASSWORD });
      await setLanguage(admin, lng);
      const adminTops = new Set();
      for (const item of await admin.locator('.nav-row > li').all()) {
        const b = await box(item, 'a header item');
        inside(b, DESKTOP.width, `${lng}: the admin's header item`);
        adminTops.add(Math.round((b.y + b.height / 2) / 8));
      }
      assert.equal(adminTops.size, 1, `${lng}: the admin's header sits on ${adminTops.size} rows`);
      await admin.getByTestId('nav-group-admin').click();
      await admin.getByTestId('nav-admin-payouts').click();
      await admin.waitForURL(/\/admin\/payouts$/);

      at(`${lng}: on a phone the header is one short row with the page named`);
      const phone = await openPage(browser, {
        errors: pageErrors,
        timeout: STEP_TIMEOUT(),
        contextOptions: { viewport: PHONE, storageState: await desk.context().storageState() },
        name: `phone-${lng}`,
      });
      pages[`phone-${lng}`] = phone;
      await phone.goto(`${server.url}/provider/earnings`);
      await phone.getByTestId('earnings-page').waitFor();
      await setLanguage(phone, lng);
      const header = await box(phone.getByTestId('header'), 'the header');
      assert.ok(header.height <= 72, `${lng}: the phone's header is ${header.height} px high`);
      inside(header, PHONE.width, `${lng}: the phone's header`);
      assert.equal((await phone.getByTestId('nav-current').textContent()).trim(), t.earnings, `${lng}: the menu button names the page`);
      assert.equal(await phone.getByTestId('nav-payouts').isVisible(), false, 'the sections wait behind the button');

      at(`${lng}: the phone's menu lists the sections under their names and fits the screen`);
      await phone.getByTestId('nav-toggle').click();
      const panel = phone.getByTestId('nav-panel');
      inside(await box(panel, 'the menu'), PHONE.width, `${lng}: the phone's menu`);
      await saveScreenshot(phone, `navigation-phone-${lng}.png`);
      const headings = (await panel.locator('h2').allTextContents()).map((s) => s.trim());
      assert.deepEqual(headings, [t.groups.fleet, t.groups.money, t.groups.account], `${lng}: the menu's sections`);
      for (const id of ['nav-overview', 'nav-benchmarks', 'nav-tokens', 'nav-pricing', 'nav-earnings', 'nav-payouts', 'nav-performance', 'nav-rentals', 'nav-funds', 'nav-roles', 'nav-account']) {
        inside(await box(phone.getByTestId(id), id), PHONE.width, `${lng}: ${id} in the menu`);
      }
      await phone.keyboard.press('Escape');
      await panel.waitFor({ state: 'hidden' });

      at(`${lng}: a choice on the phone opens the page and renames the button`);
      await phone.getByTestId('nav-toggle').click();
      await phone.getByTestId('nav-payouts').click();
      await phone.waitForURL(/\/provider\/payouts$/);
      await phone.getByTestId('payouts-page').waitFor();
      await panel.waitFor({ state: 'hidden' });
      assert.equal((await phone.getByTestId('nav-current').textContent()).trim(), t.payouts);

      at(`${lng}: the notification panel fits the phone`);
      await phone.getByTestId('notification-bell').click();
      inside(await box(phone.getByTestId('notification-panel'), 'the notification panel'), PHONE.width, `${lng}: the phone's notification panel`);
      await saveScreenshot(phone, `navigation-phone-notifications-${lng}.png`);
    }
    assert.deepEqual(pageErrors, []);
  } catch (err) {
    throw await explainFailure(err, {
      step,
      screenshots: Object.fromEntries(Object.entries(pages).map(([name, p]) => [`e2e-navigation-failure-${name}.png`, p])),
      logs: { 'server output': server.output() },
    });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
});
