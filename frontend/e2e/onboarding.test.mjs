// Provider onboarding end to end: a real gpunex server (demo world), two
// Chromium contexts (applicant and admin, the admin with two tabs: the
// review queue, and a second one that only watches every application) on
// the embedded SPA, and the email outbox sink on disk. A new user applies
// with two GPU entries (a supported model 24/7, another one in weekly
// windows in a time zone) and the application appears in the admin's queue
// live; the admin asks for more information; the applicant sees it live,
// edits and resubmits; the admin's review page shows the resubmitted answers
// and history live; the admin approves as Community; the watching tab
// follows every status without a reload; the applicant sees the approval
// live, creates an agent token (shown once, with the install command) and
// the approval email is found as an .eml file. No admin or applicant page is
// ever reloaded. The last screen is saved as artifacts/e2e-onboarding.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { confirmationLink, waitForMessage } from './mail.mjs';
import { frontendDir, startServer } from './server.mjs';
import { patience, testPatience } from './patience.mjs';
import { navigate } from './session.mjs';

const en = JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', 'en.json'), 'utf8'));

const STEP_TIMEOUT = patience;
const ADMIN = { email: 'admin@gpunex.demo', password: 'gpunex-demo' };
// The applicant's browser runs in this zone, so the form's default is known.
const APPLICANT_ZONE = 'America/Sao_Paulo';
const APPROVAL_SUBJECT = "You're approved to provide GPUs on GPUnex";

// Notification texts carry their values in Unicode isolates (U+2068..U+2069).
const plain = (s) => (s ?? '').replace(/[\u2068\u2069]/g, '').trim();

// trackerIs waits until page's progress tracker stands at step current,
// every step before it done (with its date) and every one after ahead.
async function trackerIs(page, current) {
  const steps = en.progress.step;
  const order = Object.keys(steps);
  await page.waitForFunction((want) => document.querySelector('[data-testid="progress-tracker"]')?.getAttribute('data-current') === want, current);
  const seen = await page.locator('[data-testid="progress-step"]').evaluateAll((els) =>
    els.map((el) => [el.getAttribute('data-step'), el.getAttribute('data-state'), el.querySelector('.progress-when')?.textContent ?? '']),
  );
  const at = order.indexOf(current);
  assert.deepEqual(
    seen.map(([step, state]) => [step, state]),
    order.map((step, i) => [step, i < at ? 'done' : i === at ? 'current' : 'ahead']),
    `the tracker at ${current}`,
  );
  for (const [step, state, when] of seen) {
    if (state === 'done') assert.match(when, /\d/, `${step} says when it was reached: ${when}`);
  }
}

test('onboarding: apply with two GPUs, info requested, resubmit, approve, live notices, agent token, approval email', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  let step = 'start';
  const pages = {};
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  // newPage opens a page in a new browser context, or in context (which
  // shares its cookies: the same signed-in user in another tab).
  async function newPage(name, options, context) {
    const contextOptions = { viewport: { width: 1280, height: 900 }, ...options };
    const page = await openPage(browser, { errors: pageErrors, contextOptions, context, name });
    pages[name] = page;
    return page;
  }

  const statusIs = (page, selector, status) =>
    page.waitForFunction(([sel, want]) => document.querySelector(sel)?.getAttribute('data-status') === want, [selector, status], {
      timeout: STEP_TIMEOUT(),
    });

  // A marker on window survives only if the page never reloads.
  const markNoReload = (page) =>
    page.evaluate(() => {
      window.__gpunexNoReload = true;
    });
  const notReloaded = async (page, who) =>
    assert.equal(await page.evaluate(() => window.__gpunexNoReload), true, `the ${who} page was not reloaded`);

  const unreadIs = (page, n) =>
    page.waitForFunction(
      (want) => document.querySelector('[data-testid="notification-unread-count"]')?.textContent?.trim() === String(want),
      n,
      { timeout: STEP_TIMEOUT() },
    );

  try {
    browser = await launchBrowser();
    const user = await newPage('applicant', { timezoneId: APPLICANT_ZONE });
    const admin = await newPage('admin');
    const u = (id) => user.getByTestId(id);
    const a = (id) => admin.getByTestId(id);
    const text = async (locator) => ((await locator.textContent()) ?? '').trim();

    at('applicant signs up');
    const stamp = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const applicant = {
      name: `Grace Hopper ${stamp.slice(-5)}`,
      email: `grace.${stamp}@example.com`,
      password: 'cobol-compiler-1959',
    };
    await user.goto(`${server.url}/signup`);
    await u('field-name').fill(applicant.name);
    await u('field-email').fill(applicant.email);
    await u('field-password').fill(applicant.password);
    await u('signup-submit').click();
    await u('signup-sent').waitFor();
    await user.goto(await confirmationLink(server.dataDir, applicant.email));
    await u('account-page').waitFor();
    await unreadIs(user, 1); // the welcome notification
    await markNoReload(user);

    at('Roles page: apply to provide GPUs');
    await navigate(user, 'nav-roles');
    await u('roles-page').waitFor();
    await u('role-provider').waitFor();
    await u('roles-apply').click();
    await u('apply-page').waitFor();
    assert.equal(await u('field-fullName').inputValue(), applicant.name, 'full name prefilled from me');
    assert.equal(await u('field-email').inputValue(), applicant.email, 'email prefilled from me');

    at('GPU entry 1: a supported model, 24/7');
    await u('field-company').fill('Hopper Compute');
    // Quantity 0 is sent as is: the server's OUT_OF_RANGE must show at the field.
    await u('field-gpus.0.modelKey').selectOption('H100_SXM_80GB');
    await u('field-gpus.0.quantity').fill('0');
    await u('field-gpus.0.ramGb').fill('512');
    await u('field-gpus.0.uploadGbps').fill('10');
    await u('field-gpus.0.downloadGbps').fill('10');
    await u('field-gpus.0.location.city').fill('Lisbon');
    await u('field-gpus.0.location.country').fill('Portugal');

    at('GPU entry 2: another model in weekly windows, in the browser time zone');
    await u('gpu-add').click();
    assert.equal(await u('gpu-entry').count(), 2);
    await u('field-gpus.1.modelKey').selectOption('RTX_4090_24GB');
    await u('field-gpus.1.quantity').fill('4');
    await u('field-gpus.1.ramGb').fill('128');
    await u('field-gpus.1.uploadGbps').fill('0.5');
    await u('field-gpus.1.downloadGbps').fill('1');
    await u('field-gpus.1.availability.kind-WEEKLY').check();
    assert.equal(await u('field-gpus.1.availability.timeZone').inputValue(), APPLICANT_ZONE, 'time zone defaults to the browser zone');
    const entry2 = u('gpu-entry').nth(1);
    assert.equal(await entry2.getByTestId('window-row').count(), 1, 'weekly starts with one window');
    // An empty window (ends when it starts): EMPTY_WINDOW at its end.
    await u('field-gpus.1.availability.windows.0.day').selectOption('SATURDAY');
    await u('field-gpus.1.availability.windows.0.start').selectOption('10:00');
    await u('field-gpus.1.availability.windows.0.end').selectOption('10:00');
    await entry2.getByTestId('window-add').click();
    assert.equal(await entry2.getByTestId('window-row').count(), 2);
    await u('field-gpus.1.availability.windows.1.day').selectOption('SUNDAY');
    await u('field-gpus.1.availability.windows.1.start').selectOption('00:00');
    await u('field-gpus.1.availability.windows.1.end').selectOption('24:00');
    await u('field-gpus.1.location.region').fill('sa-east');

    at('infrastructure answers');
    await u('field-upsProtected-no').check();
    await u('field-commitmentMonths').selectOption('6');
    await u('field-maintenanceNotes').fill('Monthly maintenance on the first Sunday.');

    at('server errors are shown at their fields');
    await u('application-submit').click();
    await u('field-gpus.0.quantity-error').waitFor();
    assert.equal(await text(u('field-gpus.0.quantity-error')), en.userErrors.quantity.OUT_OF_RANGE);
    assert.equal(await text(u('field-gpus.1.availability.windows.0.end-error')), en.userErrors.EMPTY_WINDOW);
    assert.equal(await u('field-gpus.0.quantity').getAttribute('aria-invalid'), 'true');

    at('admin logs in and opens the queue; a second tab watches every application');
    await admin.goto(`${server.url}/login`);
    await a('field-email').fill(ADMIN.email);
    await a('field-password').fill(ADMIN.password);
    await a('login-submit').click();
    // Admins land on the review queue (issue 11 point 8).
    await a('admin-queue-page').waitFor();
    await markNoReload(admin);
    await admin.locator('[data-testid="queue-table"][data-live="true"]').waitFor();
    const watcher = await newPage('admin-watcher', undefined, admin.context());
    await watcher.goto(`${server.url}/admin/applications?status=ALL`);
    await watcher.locator('[data-testid="queue-table"][data-live="true"]').waitFor();
    await markNoReload(watcher);
    const rowSelector = `[data-testid="queue-row"][data-email="${applicant.email}"]`;
    assert.equal(await admin.locator(rowSelector).count(), 0, 'not applied yet');

    at('fix and submit');
    await u('field-gpus.0.quantity').fill('8');
    await u('field-gpus.1.availability.windows.0.end').selectOption('22:00');
    await u('application-submit').click();
    await u('application-page').waitFor();
    assert.equal(await u('application-page').getAttribute('data-status'), 'SUBMITTED');
    assert.equal(await text(u('application-status')), en.application.status.SUBMITTED);
    assert.equal(await u('tier-suggestion').getAttribute('data-tier'), 'COMMUNITY', 'no UPS: Community is suggested');
    assert.ok((await text(u('tier-reasons'))).includes(en.tierReasons.noUps), 'the reason is translated from its code');
    assert.equal(await u('answer-gpu').count(), 2);
    await trackerIs(user, 'APPROVED');

    at('the application appears in the admin queue live');
    const row = admin.locator(rowSelector);
    await row.waitFor();
    assert.equal(await row.getAttribute('data-status'), 'SUBMITTED');
    await statusIs(watcher, rowSelector, 'SUBMITTED');
    await notReloaded(admin, 'admin');

    await row.getByTestId('queue-open').click();
    await a('admin-review-page').waitFor();
    await admin.locator('[data-testid="admin-review-page"][data-live="true"]').waitFor();
    assert.equal(await a('answer-gpu').count(), 2, 'all GPU entries are shown');
    const kinds = await a('answer-availability').evaluateAll((els) => els.map((el) => el.getAttribute('data-kind')));
    assert.deepEqual(kinds, ['ALWAYS', 'WEEKLY']);
    assert.ok((await text(a('application-answers'))).includes(APPLICANT_ZONE), 'the time zone is shown');
    assert.equal(await a('tier-suggestion').getAttribute('data-tier'), 'COMMUNITY');
    assert.equal(await a('field-tier').inputValue(), 'COMMUNITY', 'the tier select starts at the suggestion');

    at('admin: Enterprise without UPS is refused at the tier select');
    await a('field-tier').selectOption('ENTERPRISE');
    await a('review-approve').click();
    await a('field-tier-error').waitFor();
    assert.equal(await text(a('field-tier-error')), en.userErrors.UPS_REQUIRED);
    assert.equal(await a('admin-review-page').getAttribute('data-status'), 'SUBMITTED', 'nothing changed');

    at('admin: asking for information needs a message');
    await a('review-request-info').click();
    await a('field-message-error').waitFor();
    assert.equal(await text(a('field-message-error')), en.userErrors.message.REQUIRED);

    at('admin asks for more information');
    const question = 'How do you cool the RTX 4090 rig, and is it on a dedicated circuit?';
    await a('field-message').fill(question);
    await a('review-request-info').click();
    await a('review-done').waitFor();
    await admin.waitForFunction(
      () => document.querySelector('[data-testid="admin-review-page"]')?.getAttribute('data-status') === 'INFO_REQUESTED',
    );
    await statusIs(watcher, rowSelector, 'INFO_REQUESTED');

    at('applicant sees the request live: bell and status page, no reload');
    await unreadIs(user, 2);
    await user.waitForFunction(
      () => document.querySelector('[data-testid="application-page"]')?.getAttribute('data-status') === 'INFO_REQUESTED',
    );
    assert.equal(await text(u('application-reviewer-message')), question);
    await u('notification-bell').click();
    const infoItem = u('notification-item').first();
    assert.equal(await infoItem.getAttribute('data-kind'), 'APPLICATION_INFO_REQUESTED');
    const infoText = plain(await infoItem.textContent());
    assert.ok(infoText.includes(en.notifications.kinds.APPLICATION_INFO_REQUESTED.title), `info notification: ${infoText}`);
    assert.ok(infoText.includes(question), `the question is in the notification: ${infoText}`);
    await user.keyboard.press('Escape');
    await notReloaded(user, 'applicant');

    at('applicant edits and resubmits');
    await u('application-edit-button').click();
    await u('application-edit').waitFor();
    assert.equal(await u('gpu-entry').count(), 2, 'both entries are prefilled');
    assert.equal(await u('field-gpus.0.modelKey').inputValue(), 'H100_SXM_80GB');
    assert.equal(await u('field-gpus.0.quantity').inputValue(), '8');
    assert.equal(await u('field-gpus.1.availability.timeZone').inputValue(), APPLICANT_ZONE);
    assert.equal(await u('gpu-entry').nth(1).getByTestId('window-row').count(), 2);
    assert.equal(await u('field-upsProtected-no').isChecked(), true);
    const answer = 'Monthly maintenance on the first Sunday. The 4090 rig is water-cooled on its own 20 A circuit.';
    await u('field-maintenanceNotes').fill(answer);
    await u('application-submit').click();
    await u('application-page').waitFor();
    await u('application-submitted-notice').waitFor();
    assert.equal(await u('application-page').getAttribute('data-status'), 'SUBMITTED');
    const actions = await u('history-item').evaluateAll((els) => els.map((el) => el.getAttribute('data-action')));
    assert.deepEqual(actions, ['SUBMITTED', 'INFO_REQUESTED', 'RESUBMITTED'], 'history: who did what, in order');

    at('the admin review page shows the resubmission live, without a reload');
    await statusIs(admin, '[data-testid="admin-review-page"]', 'SUBMITTED');
    await a('review-live-change').waitFor();
    assert.equal(await a('review-live-change').getAttribute('data-action'), 'RESUBMITTED');
    assert.ok(plain(await text(a('review-live-change'))).includes(applicant.name), 'it says who changed the application');
    assert.equal(await text(a('answer-notes')), answer, 'the admin sees the new answer');
    const adminActions = await a('history-item').evaluateAll((els) => els.map((el) => el.getAttribute('data-action')));
    assert.deepEqual(adminActions, ['SUBMITTED', 'INFO_REQUESTED', 'RESUBMITTED'], 'and the history');
    assert.equal(await a('review-done').count(), 0, 'the earlier "question sent" notice is gone');
    await statusIs(watcher, rowSelector, 'SUBMITTED');
    await notReloaded(admin, 'admin');

    at('admin approves as Community');    await a('field-tier').selectOption('COMMUNITY');
    await a('field-message').fill('Welcome aboard!');
    await a('review-approve').click();
    await a('review-done').waitFor();
    await admin.waitForFunction(
      () => document.querySelector('[data-testid="admin-review-page"]')?.getAttribute('data-status') === 'APPROVED',
    );
    assert.equal(await a('review-tier').getAttribute('data-tier'), 'COMMUNITY');
    assert.equal(await a('review-live-change').count(), 0, 'the own decision is not reported as news');
    await statusIs(watcher, rowSelector, 'APPROVED');
    await notReloaded(admin, 'admin');
    await notReloaded(watcher, 'watching admin');

    at('applicant sees the approval live and becomes a provider');
    await unreadIs(user, 3);
    await user.waitForFunction(
      () => document.querySelector('[data-testid="application-page"]')?.getAttribute('data-status') === 'APPROVED',
    );
    await u('nav-tokens').waitFor({ state: 'attached' }); // me was asked again: PROVIDER now
    await trackerIs(user, 'AGENT_TOKEN');
    assert.equal(await u('progress-next-link').getAttribute('href'), '/provider/tokens', 'the next step links to where it is taken');
    await u('notification-bell').click();
    const approved = u('notification-item').first();
    assert.equal(await approved.getAttribute('data-kind'), 'APPLICATION_APPROVED');
    const approvedText = plain(await approved.textContent());
    assert.ok(approvedText.includes(en.notifications.kinds.APPLICATION_APPROVED.title), `approval notification: ${approvedText}`);
    assert.ok(approvedText.includes(en.tiers.COMMUNITY.name), `the tier is named: ${approvedText}`);
    await notReloaded(user, 'applicant');

    at('applicant opens the tokens page from the notification');
    await approved.getByTestId('notification-link').click();
    await u('tokens-page').waitFor();
    assert.equal(await u('tokens-tier').getAttribute('data-tier'), 'COMMUNITY');
    await u('tokens-empty').waitFor();

    at('issue 29 point 6: the new provider, with no machine yet, has no score, and is told what brings one');
    await navigate(user, 'nav-performance');
    await u('performance-page').waitFor();
    assert.equal(await u('performance-page').getAttribute('data-scored'), 'false');
    assert.equal(plain(await u('performance-score').textContent()), en.reliability.score.none);
    assert.equal(plain(await u('performance-score-none').textContent()), en.reliability.score.noneHelp);
    assert.equal(await u('performance-component').count(), 0, 'no components of a prior');
    await u('performance-machines-none').waitFor();
    await user.goBack();
    await u('tokens-empty').waitFor();

    at('create a token: the secret once, with the install command');
    await u('token-create').click();
    await u('field-name-error').waitFor(); // a name is required
    await u('field-name').fill('rig-1');
    await u('token-create').click();
    await u('token-secret-panel').waitFor();
    const secret = await text(u('token-secret'));
    assert.match(secret, /^gpx_a_\S{20,}$/, `token secret: ${secret}`);
    const install = await text(u('token-install-command'));
    assert.ok(install.endsWith('/agent/install.sh | sudo sh'), `install command: ${install}`);
    assert.ok(!install.includes(secret), 'issue 9 point 8: the install command never holds the token');
    await u('token-install-prompt').waitFor(); // the installer asks for the token
    const tokenRow = user.locator('[data-testid="token-row"][data-name="rig-1"]');
    await tokenRow.waitFor();
    assert.equal(await tokenRow.getAttribute('data-revoked'), 'false');
    const prefix = (await text(tokenRow.getByTestId('token-prefix'))).replace(/…$/, '');
    assert.ok(prefix.length >= 6 && secret.startsWith(prefix), `the listed prefix ${prefix} starts the secret`);

    at('screenshot');
    console.log(`screenshot: ${await saveScreenshot(user, 'e2e-onboarding.png')}`);

    at('the approval email is in the outbox sink');
    const email = await waitForMessage(server.dataDir, applicant.email, 'application.approved', { timeoutMs: 30_000 });
    assert.equal(email.subject, APPROVAL_SUBJECT);
    assert.ok(email.text.includes('/agent/install.sh | sudo sh'), `the approval email holds the install command:\n${email.text}`);
    assert.ok(!email.text.includes('GPUNEX_TOKEN='), `no command with the token in the approval email:\n${email.text}`);
    console.log(`approval email: ${email.file}`);

    at('revoke the token after confirming');
    await u('token-secret-done').click();
    await tokenRow.getByTestId('token-revoke').click();
    await tokenRow.getByTestId('token-revoke-confirm').click();
    await user.waitForFunction(
      () => document.querySelector('[data-testid="token-row"][data-name="rig-1"]')?.getAttribute('data-revoked') === 'true',
    );

    at('issue 29 point 9: the Overview tracks the way to a first rental, the token made (revoked since) and a machine next');
    await navigate(user, 'nav-overview');
    await u('overview-page').waitFor();
    await trackerIs(user, 'MACHINE_ONLINE');
    assert.equal(plain(await user.locator('[data-testid="progress-step"][data-step="MACHINE_ONLINE"] .progress-label').textContent()), en.progress.step.MACHINE_ONLINE);
    assert.equal(plain(await u('progress-next').textContent()).startsWith(en.progress.next.MACHINE_ONLINE), true, 'says what to do next');
    console.log(`screenshot: ${await saveScreenshot(user, 'e2e-onboarding-progress.png')}`);

    assert.deepEqual(pageErrors, [], 'no uncaught errors in the pages');
  } catch (err) {
    throw await explainFailure(err, {
      step,
      screenshots: Object.fromEntries(Object.entries(pages).map(([name, page]) => [`e2e-onboarding-failure-${name}.png`, page])),
      logs: { 'server output': server.output() },
    });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
});
