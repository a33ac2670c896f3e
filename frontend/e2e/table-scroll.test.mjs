// A table wider than its box scrolls inside the box (issue 11, point 1:
// "hidden behind a sideways scroll with no hint"). Every table of the SPA
// fits its box today (cards below 40rem, wrapping values above), so the
// test makes the Overview's GPU table wider than its box, as a table of
// more columns would be, and checks the hint in Chromium, in English and in
// Arabic (right to left): a shadow on the side with more columns, moving
// to the other side as the box is scrolled with the keyboard; the box is
// then a named region in the tab order; and all of it goes when the table
// fits again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { startServer } from './server.mjs';
import { graphql } from './session.mjs';
import { testPatience } from './patience.mjs';


// hint reads the first GPU table's frame: which shadows it shows (their
// computed opacity, once the fade ended), where each lies, and how its box
// presents itself to the keyboard and to screen readers.
function hint() {
  const frame = document.querySelector('[data-testid="gpu-table"]').closest('.data-table-frame');
  const box = frame.firstElementChild;
  const before = getComputedStyle(frame, '::before');
  const after = getComputedStyle(frame, '::after');
  return {
    start: frame.hasAttribute('data-more-start'),
    end: frame.hasAttribute('data-more-end'),
    startShadow: { opacity: before.opacity, left: before.left, right: before.right },
    endShadow: { opacity: after.opacity, left: after.left, right: after.right },
    tabIndex: box.getAttribute('tabindex'),
    role: box.getAttribute('role'),
    label: box.getAttribute('aria-label'),
    scrollLeft: box.scrollLeft,
    focused: document.activeElement === box,
  };
}

// widen sets the table's width through the CSSOM (allowed by the page's
// Content-Security-Policy, unlike a <style> element); null restores it.
// fadedTo waits until the shadows' fade (0.15 s) has ended at the given
// opacities: a busy machine paints late, so the test waits for the paint,
// not for a time.
async function fadedTo(page, start, end) {
  await page.waitForFunction(
    ([s, e]) => {
      const frame = document.querySelector('[data-testid="gpu-table"]').closest('.data-table-frame');
      return getComputedStyle(frame, '::before').opacity === s && getComputedStyle(frame, '::after').opacity === e;
    },
    [start, end],
  );
}

function widen(width) {
  const table = document.querySelector('[data-testid="gpu-table"]');
  table.style.minInlineSize = width ?? '';
}

test('a table wider than its box shows which side has more and scrolls with the keyboard, in English and in Arabic', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  let page;
  let step = 'start';
  const pageErrors = [];
  try {
    browser = await launchBrowser();
    page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport: { width: 1280, height: 900 } } });
    await graphql(page.context(), server, 'mutation($input: LogInInput!) { logIn(input: $input) { userErrors { field code } } }', {
      input: { email: 'provider@gpunex.demo', password: 'gpunex-demo' },
    });
    for (const language of ['en', 'ar']) {
      step = `overview in ${language}`;
      await graphql(page.context(), server, 'mutation($language: Language!) { setLanguage(language: $language) { userErrors { field code } } }', {
        language: language.toUpperCase(),
      });
      await page.goto(`${server.url}/provider/overview`);
      await page.getByTestId('gpu-row').first().waitFor();
      const rtl = language === 'ar';
      assert.equal(await page.evaluate(() => document.documentElement.dir), rtl ? 'rtl' : 'ltr');

      step = `a table that fits (${language})`;
      const fits = await page.evaluate(hint);
      assert.deepEqual([fits.start, fits.end, fits.tabIndex, fits.role], [false, false, null, null], `${step}: no hint, not a region`);
      assert.deepEqual([fits.startShadow.opacity, fits.endShadow.opacity], ['0', '0'], `${step}: no shadow drawn`);

      step = `a table wider than its box (${language})`;
      await page.evaluate(widen, '2400px');
      await page.waitForFunction(() => document.querySelector('[data-testid="gpu-table"]').closest('.data-table-frame').hasAttribute('data-more-end'));
      await fadedTo(page, '0', '1');
      const wide = await page.evaluate(hint);
      assert.equal(wide.start, false, `${step}: nothing before the start`);
      assert.equal(wide.endShadow.opacity, '1', `${step}: the end's shadow is drawn`);
      assert.equal(wide.startShadow.opacity, '0', `${step}: the start's is not`);
      // The end is the right in English, the left in Arabic.
      assert.equal(rtl ? wide.endShadow.left : wide.endShadow.right, '0px', `${step}: the end's shadow lies on the ${rtl ? 'left' : 'right'}`);
      assert.deepEqual([wide.tabIndex, wide.role], ['0', 'region'], `${step}: the box is a region in the tab order`);
      assert.ok(wide.label, `${step}: the region is named after the table`);
      await saveScreenshot(page, `table-scroll-${language}-start.png`);

      step = `scrolled with the keyboard (${language})`;
      await page.locator('.data-table-frame:has([data-testid="gpu-table"]) > .data-table-box').first().focus();
      for (let i = 0; i < 5; i++) await page.keyboard.press(rtl ? 'ArrowLeft' : 'ArrowRight');
      await page.waitForFunction(() => document.querySelector('[data-testid="gpu-table"]').closest('.data-table-frame').hasAttribute('data-more-start'));
      const scrolled = await page.evaluate(hint);
      assert.ok(rtl ? scrolled.scrollLeft < 0 : scrolled.scrollLeft > 0, `${step}: the arrow keys scrolled the box (scrollLeft ${scrolled.scrollLeft})`);
      assert.equal(scrolled.end, true, `${step}: more still lies at the end`);

      step = `scrolled to the end (${language})`;
      await page.evaluate(() => {
        const box = document.querySelector('[data-testid="gpu-table"]').closest('.data-table-box');
        box.scrollLeft = (getComputedStyle(box).direction === 'rtl' ? -1 : 1) * box.scrollWidth;
      });
      await page.waitForFunction(() => !document.querySelector('[data-testid="gpu-table"]').closest('.data-table-frame').hasAttribute('data-more-end'));
      await fadedTo(page, '1', '0');
      const end = await page.evaluate(hint);
      assert.equal(end.start, true, `${step}: more lies before`);
      assert.deepEqual([end.startShadow.opacity, end.endShadow.opacity], ['1', '0'], `${step}: only the start's shadow is drawn`);
      assert.equal(rtl ? end.startShadow.right : end.startShadow.left, '0px', `${step}: the start's shadow lies on the ${rtl ? 'right' : 'left'}`);
      await saveScreenshot(page, `table-scroll-${language}-end.png`);

      step = `the table fits again (${language})`;
      await page.evaluate(widen, null);
      await page.waitForFunction(() => {
        const f = document.querySelector('[data-testid="gpu-table"]').closest('.data-table-frame');
        return !f.hasAttribute('data-more-start') && !f.hasAttribute('data-more-end');
      });
      // The box had the keyboard's focus: it keeps it (and stays
      // focusable) until the focus moves on.
      const kept = await page.evaluate(hint);
      assert.deepEqual([kept.tabIndex, kept.focused], ['0', true], `${step}: the focus stays on the box`);
      await page.evaluate(() => document.activeElement.blur());
      await page.waitForFunction(() => !document.querySelector('[data-testid="gpu-table"]').closest('.data-table-box').hasAttribute('tabindex'));
      const again = await page.evaluate(hint);
      assert.deepEqual([again.tabIndex, again.role], [null, null], `${step}: no longer a region once the focus moved on`);
    }
    step = 'the pages checked';
    assert.deepEqual(pageErrors, [], 'no uncaught error in the page');
  } catch (err) {
    throw await explainFailure(err, { step, screenshots: { 'table-scroll-failure.png': page }, logs: { server: server.output() } });
  } finally {
    await browser?.close();
    await server.stop();
  }
});
