// The application loop without friction (issue 11, points 3 to 8), end to
// end on a real gpunex server (demo world) in Chromium: a new user, on a
// 390 px phone, meets the one "for providers" page (offering to apply, never
// "Your application"); submits the empty form once and sees every problem
// at its field; applies with an overnight window (20:00–08:00, shown "next
// day", its Remove button inside its card); is rejected, and "Apply again"
// starts from the rejected answers; the admin lands on the review queue with
// counts on its tabs (which follow the rejection and the new application
// live in a second tab), asks for more information; the applicant replies and
// edits; the admin sees the reply and a field-by-field difference beside the
// decision (the applicant does not see the difference); the admin approves
// as Enterprise over a Community suggestion, and both see the decided tier
// first and the suggestion as one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { artifactsDir, explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { confirmationLink } from './mail.mjs';
import { frontendDir, startServer } from './server.mjs';
import { patience, testPatience } from './patience.mjs';

const en = JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', 'en.json'), 'utf8'));

const STEP_TIMEOUT = patience;
const ADMIN = { email: 'admin@gpunex.demo', password: 'gpunex-demo' };
const PHONE = { width: 390, height: 844 };

test('application loop: one-pass errors, overnight window, prefilled re-application, reply and difference, decided tier, admin landing', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  let step = 'start';
  const pages = {};
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };
  const newPage = async (name, viewport) => {
    const page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport, timezoneId: 'Europe/Lisbon' }, name });
    pages[name] = page;
    return page;
  };
  const text = async (locator) => ((await locator.textContent()) ?? '').replace(/[\u2068\u2069]/g, '').trim();
  const attr = (page, selector, name, want) =>
    page.waitForFunction(([s, n, w]) => document.querySelector(s)?.getAttribute(n) === w, [selector, name, want], { timeout: STEP_TIMEOUT() });

  try {
    browser = await launchBrowser();
    const user = await newPage('applicant', PHONE);
    const admin = await newPage('admin', { width: 1280, height: 900 });
    const u = (id) => user.getByTestId(id);
    const a = (id) => admin.getByTestId(id);

    at('a new user signs up on a phone');
    const stamp = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const applicant = { name: `Ada Night ${stamp.slice(-5)}`, email: `ada.${stamp}@example.com`, password: 'overnight-rig-2026' };
    await user.goto(`${server.url}/signup`);
    await u('field-name').fill(applicant.name);
    await u('field-email').fill(applicant.email);
    await u('field-password').fill(applicant.password);
    await u('signup-submit').click();
    await u('signup-sent').waitFor();
    await user.goto(await confirmationLink(server.dataDir, applicant.email));
    await u('account-page').waitFor();

    at('point 8: a provider page shows one page with a heading and ways on, never "Your application"');
    await user.goto(`${server.url}/provider/tokens`);
    await u('forbidden').waitFor();
    assert.equal(await u('forbidden').getAttribute('data-role'), 'PROVIDER');
    assert.equal(await text(u('forbidden').locator('h1')), en.forbidden.provider.title);
    await u('forbidden-apply').waitFor();
    assert.equal(await u('forbidden-home').getAttribute('href'), '/');
    assert.equal(await u('forbidden-application').count(), 0, 'no "Your application" without one');
    assert.ok(!(await text(user.locator('body'))).includes(en.roles.applicationStatus), 'nowhere on the page');

    at('point 3: the empty form, submitted once, shows every problem at its field');
    await u('forbidden-apply').click();
    await u('apply-page').waitFor();
    await u('application-submit').click();
    for (const field of ['upsProtected', 'gpus.0.modelKey', 'gpus.0.ramGb', 'gpus.0.uploadGbps', 'gpus.0.downloadGbps', 'gpus.0.location']) {
      await u(`field-${field}-error`).waitFor();
    }
    assert.equal(await text(u('field-upsProtected-error')), en.userErrors.upsProtected.REQUIRED);
    assert.equal(await text(u('field-gpus.0.ramGb-error')), en.userErrors.ramGb.OUT_OF_RANGE);

    at('point 4: an overnight window, 20:00–08:00, on a phone');
    await u('field-gpus.0.modelKey').selectOption('RTX_4090_24GB');
    await u('field-gpus.0.quantity').fill('2');
    await u('field-gpus.0.ramGb').fill('128');
    await u('field-gpus.0.uploadGbps').fill('0.5');
    await u('field-gpus.0.downloadGbps').fill('1');
    await u('field-gpus.0.location.city').fill('Porto');
    await u('field-gpus.0.location.country').fill('Portugal');
    await u('field-gpus.0.availability.kind-WEEKLY').check();
    await u('field-gpus.0.availability.windows.0.start').selectOption('20:00');
    await u('field-gpus.0.availability.windows.0.end').selectOption('08:00');
    await u('window-next-day').waitFor();
    const row = u('window-row').first();
    assert.equal(await row.getAttribute('data-crosses-midnight'), 'true');
    const fits = await row.evaluate((card) => {
      const box = card.getBoundingClientRect();
      const button = card.querySelector('[data-testid="window-remove"]').getBoundingClientRect();
      return { inside: button.left >= box.left - 0.5 && button.right <= box.right + 0.5, page: document.documentElement.scrollWidth <= window.innerWidth };
    });
    assert.deepEqual(fits, { inside: true, page: true }, 'Remove stays in its card, nothing wider than the phone');
    const schedule = join(artifactsDir(), 'e2e-application-window-390.png');
    await u('field-gpus.0.availability').screenshot({ path: schedule });
    console.log(`screenshot: ${schedule}`);
    // Tuesday 07:00–09:00 shares Tuesday 07:00–08:00 with the overnight window.
    await u('window-add').click();
    await u('field-gpus.0.availability.windows.1.start').selectOption('07:00');
    await u('field-gpus.0.availability.windows.1.end').selectOption('09:00');
    await u('field-upsProtected-no').check();
    await u('application-submit').click();
    await u('field-gpus.0.availability.windows.1-error').waitFor();
    assert.equal(await text(u('field-gpus.0.availability.windows.1-error')), en.userErrors.OVERLAP);
    assert.equal(await u('field-gpus.0.availability.windows.0.end-error').count(), 0, 'the overnight window itself is accepted');
    await u('window-remove').nth(1).click();
    await u('application-submit').click();
    await u('application-page').waitFor();
    const shown = u('answer-availability').getByTestId('window-text');
    assert.equal(await shown.getAttribute('data-crosses-midnight'), 'true');
    assert.ok((await text(shown)).includes(en.application.nextDay), `shown with "next day": ${await text(shown)}`);

    at('point 8: the admin lands on the review queue, its tabs counted');
    await admin.goto(`${server.url}/login`);
    await a('field-email').fill(ADMIN.email);
    await a('field-password').fill(ADMIN.password);
    await a('login-submit').click();
    await a('admin-queue-page').waitFor();
    await admin.waitForURL((url) => url.pathname === '/admin/applications');
    await a('queue-count-SUBMITTED').waitFor();
    await a('queue-total').waitFor();
    console.log(`screenshot: ${await saveScreenshot(admin, 'e2e-application-queue.png')}`);
    const submitted = Number(await a('queue-tab-SUBMITTED').getAttribute('data-count'));
    assert.ok(submitted >= 1, 'the new application is counted');
    assert.equal(Number(await a('queue-total').getAttribute('data-total')), submitted, 'the tab counts what its view lists');
    const counts = await Promise.all(['SUBMITTED', 'INFO_REQUESTED', 'APPROVED', 'REJECTED'].map(async (s) => Number(await a(`queue-tab-${s}`).getAttribute('data-count'))));
    assert.equal(Number(await a('queue-tab-ALL').getAttribute('data-count')), counts.reduce((x, y) => x + y, 0), 'All is the sum');
    const rowSelector = `[data-testid="queue-row"][data-email="${applicant.email}"]`;
    // A second tab keeps the queue open: its counts follow every change live.
    const watcher = await openPage(browser, { errors: pageErrors, context: admin.context(), name: 'admin-watcher' });
    pages['admin-watcher'] = watcher;
    await watcher.goto(`${server.url}/admin/applications?status=ALL`);
    await watcher.locator('[data-testid="queue-table"][data-live="true"]').waitFor();
    await watcher.evaluate(() => {
      window.__gpunexNoReload = true;
    });
    const [inReview, , , rejected] = counts;
    const countIs = (status, want) => attr(watcher, `[data-testid="queue-tab-${status}"]`, 'data-count', String(want));

    at('the admin rejects the first application with a reason');
    await admin.locator(rowSelector).getByTestId('queue-open').click();
    await a('admin-review-page').waitFor();
    const reason = 'Please state a UPS model: overnight home rigs need one for the Enterprise tier.';
    await a('field-message').fill(reason);
    await a('review-reject').click();
    await a('review-reject-confirm').click();
    await attr(admin, '[data-testid="admin-review-page"]', 'data-status', 'REJECTED');
    await countIs('SUBMITTED', inReview - 1);
    await countIs('REJECTED', rejected + 1);

    at('point 6: "Apply again" starts from the rejected application');
    await user.goto(`${server.url}/provider/application`);
    await attr(user, '[data-testid="application-page"]', 'data-status', 'REJECTED');
    await user.getByRole('link', { name: en.application.applyAgain }).click();
    await u('apply-page').waitFor();
    assert.equal(await u('apply-page').getAttribute('data-prefilled'), 'true');
    assert.equal(await text(u('apply-rejection-reason')), reason);
    // The model's select takes its value once the catalogue's options are
    // in (a query of its own, which may answer after the application's).
    await user
      .waitForFunction(() => document.querySelector('[data-testid="field-gpus.0.modelKey"]')?.value === 'RTX_4090_24GB')
      .catch(() => undefined);
    assert.equal(await u('field-gpus.0.modelKey').inputValue(), 'RTX_4090_24GB');
    assert.equal(await u('field-gpus.0.ramGb').inputValue(), '128');
    assert.equal(await u('field-gpus.0.location.city').inputValue(), 'Porto');
    assert.equal(await u('field-gpus.0.availability.windows.0.start').inputValue(), '20:00');
    assert.equal(await u('field-gpus.0.availability.windows.0.end').inputValue(), '08:00');
    assert.equal(await u('field-upsProtected-no').isChecked(), true);
    await u('application-submit').click();
    await attr(user, '[data-testid="application-page"]', 'data-status', 'SUBMITTED');
    await countIs('SUBMITTED', inReview);
    await countIs('ALL', counts.reduce((x, y) => x + y, 0) + 1);
    assert.equal(await watcher.evaluate(() => window.__gpunexNoReload), true, 'the counts moved without a reload');

    at('the admin asks for more information on the new application');
    await admin.goto(`${server.url}/admin/applications`);
    await admin.locator(rowSelector).getByTestId('queue-open').click();
    await attr(admin, '[data-testid="admin-review-page"]', 'data-status', 'SUBMITTED');
    await admin.locator('[data-testid="admin-review-page"][data-live="true"]').waitFor();
    const question = 'Which UPS protects the rig, and how much RAM does it really have?';
    await a('field-message').fill(question);
    await a('review-request-info').click();
    await attr(admin, '[data-testid="admin-review-page"]', 'data-status', 'INFO_REQUESTED');

    at('point 5: the applicant replies and edits');
    await attr(user, '[data-testid="application-page"]', 'data-status', 'INFO_REQUESTED');
    await u('application-edit-button').click();
    await u('application-reply').waitFor();
    assert.equal(await text(u('application-reply-question')), question);
    const reply = 'An APC Smart-UPS 1500 (about 20 minutes at full load).\nThe rig has 192 GB, not 128.';
    await u('field-reply').fill(reply);
    await u('field-upsProtected-yes').check();
    await u('field-gpus.0.ramGb').fill('192');
    await u('application-submit').click();
    await attr(user, '[data-testid="application-page"]', 'data-status', 'SUBMITTED');
    const mine = user.locator('[data-testid="history-item"][data-action="RESUBMITTED"]');
    assert.equal(await text(mine.getByTestId('history-message')), reply, 'the applicant sees their reply');
    assert.equal(await u('answer-changes').count(), 0, 'the difference is the reviewers\' view');

    at('point 5: the admin sees the reply and what changed beside the decision, live');
    await attr(admin, '[data-testid="admin-review-page"]', 'data-status', 'SUBMITTED');
    const answer = a('review-latest-answer');
    await answer.waitFor();
    assert.equal(await text(answer.getByTestId('review-question')), question);
    assert.equal(await text(answer.getByTestId('review-reply')), reply);
    const changes = await answer.getByTestId('answer-change').evaluateAll((rows) =>
      rows.map((r) => [
        r.getAttribute('data-field'),
        r.querySelector('[data-testid="answer-change-before"]').textContent.trim(),
        r.querySelector('[data-testid="answer-change-after"]').textContent.trim(),
      ]),
    );
    assert.deepEqual(changes, [
      ['gpus.0.ramGb', '128', '192'],
      ['upsProtected', en.common.no, en.common.yes],
    ]);
    assert.ok((await text(answer.getByTestId('answer-change').first())).includes(en.apply.gpu.ramGb), 'the field is named as the form names it');
    assert.equal(await a('answer-changes').count(), 1, 'the difference is shown once, beside the reply, not again in the history');
    await admin.locator('[data-testid="review-decision"]').waitFor();
    const review = join(artifactsDir(), 'e2e-application-review.png');
    await answer.screenshot({ path: review });
    console.log(`screenshot: ${review}`);

    at('point 7: approved as Enterprise over a Community suggestion');
    assert.equal(await a('field-tier').inputValue(), 'COMMUNITY', 'the suggestion');
    await a('field-tier').selectOption('ENTERPRISE');
    await a('review-approve').click();
    await attr(admin, '[data-testid="admin-review-page"]', 'data-status', 'APPROVED');
    assert.equal(await a('decided-tier').getAttribute('data-tier'), 'ENTERPRISE');
    await attr(user, '[data-testid="application-page"]', 'data-status', 'APPROVED');
    assert.equal(await u('decided-tier').getAttribute('data-tier'), 'ENTERPRISE');
    assert.ok((await text(u('decided-tier'))).includes(en.tiers.ENTERPRISE.name));
    assert.equal(await u('tier-suggestion').getAttribute('data-tier'), 'COMMUNITY');
    const suggestion = await text(u('tier-suggestion'));
    assert.ok(suggestion.includes(en.application.suggestedTierWas), `the suggestion reads as one: ${suggestion}`);
    assert.ok(!suggestion.includes(en.application.suggestedTier), 'not "Suggested tier:" as if undecided');

    console.log(`screenshot: ${await saveScreenshot(user, 'e2e-application.png')}`);
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the pages');
  } catch (err) {
    throw await explainFailure(err, {
      step,
      screenshots: Object.fromEntries(Object.entries(pages).map(([name, page]) => [`e2e-application-failure-${name}.png`, page])),
      logs: { 'server output': server.output() },
    });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
});
