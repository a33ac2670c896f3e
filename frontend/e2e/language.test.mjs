// Issue 11, point 12 end to end: the reader's language follows them from the
// SPA into their emails and back. A sign-up made with the page in Hindi is
// confirmed by an email in Hindi (text and HTML parts, read from the server's
// outbox); the new account starts in Hindi, so a browser that never chose a
// language switches to Hindi once signed in; a change made with the language
// switcher while signed in is stored on the account, and the next log-in
// adopts it even after the page was switched back while signed out.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { confirmationLink, waitForMessage } from './mail.mjs';
import { frontendDir, startServer } from './server.mjs';
import { testPatience } from './patience.mjs';

const mailTemplates = (name) =>
  JSON.parse(readFileSync(join(frontendDir, '..', 'internal', 'mail', 'templates', `${name}.json`), 'utf8'));
const locale = (name) => JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', `${name}.json`), 'utf8'));


test('language: a Hindi sign-up is mailed in Hindi, the account keeps the language, log-in adopts it', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  const pages = {};
  let step = 'start';
  const pageErrors = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };
  const lang = (page) => page.evaluate(() => [document.documentElement.lang, document.documentElement.dir].join(' '));

  try {
    browser = await launchBrowser();
    const viewport = { width: 1280, height: 860 };
    const signup = await openPage(browser, { errors: pageErrors, contextOptions: { viewport }, name: 'sign-up' });
    pages.signup = signup;

    at('sign up with the page in Hindi');
    const stamp = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const user = { name: `Priya ${stamp.slice(-5)}`, email: `priya.${stamp}@example.com`, password: 'analytical-engine-1843' };
    await signup.goto(`${server.url}/signup`);
    await signup.getByTestId('signup-page').waitFor();
    await signup.getByTestId('language-switcher').selectOption('hi');
    await signup.waitForFunction(() => document.documentElement.lang === 'hi');
    await signup.getByTestId('field-name').fill(user.name);
    await signup.getByTestId('field-email').fill(user.email);
    await signup.getByTestId('field-password').fill(user.password);
    await signup.getByTestId('signup-submit').click();
    await signup.getByTestId('signup-sent').waitFor();

    at('the confirmation email is in Hindi, text and HTML');
    const hi = mailTemplates('hi');
    const mail = await waitForMessage(server.dataDir, user.email, 'account.confirm_email');
    assert.equal(mail.subject, hi.account.confirm_email.subject);
    assert.equal(mail.language, 'hi');
    for (const part of [mail.text, mail.html]) {
      assert.ok(part.includes(hi.account.confirm_email.intro), `the Hindi intro in:\n${part}`);
      assert.ok(part.includes(hi.common.greeting.replace('{{name}}', user.name)), `the Hindi greeting in:\n${part}`);
      assert.ok(!part.includes('Hello'), `no English in:\n${part}`);
    }

    at('follow the link in a browser that never chose a language: the account is in Hindi');
    const link = await confirmationLink(server.dataDir, user.email);
    const page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport }, name: 'user' });
    pages.user = page;
    await page.goto(link);
    await page.getByTestId('account-page').waitFor();
    await page.waitForFunction(() => document.documentElement.lang === 'hi');
    assert.equal(await page.getByTestId('account-title').textContent(), locale('hi').account.title);

    at('switch to Arabic while signed in: stored on the account');
    const stored = page.waitForResponse(
      (res) => res.url().includes('/graphql') && (res.request().postData() ?? res.url()).includes('SetLanguage'),
    );
    await page.getByTestId('language-switcher').selectOption('ar');
    const answer = await (await stored).json();
    assert.equal(answer.data?.setLanguage?.user?.language, 'AR', JSON.stringify(answer));
    assert.equal(await lang(page), 'ar rtl');

    at('log out, switch to English while signed out, log in: Arabic again');
    await page.getByTestId('logout-button').click();
    await page.getByTestId('login-page').waitFor();
    await page.getByTestId('language-switcher').selectOption('en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await page.getByTestId('field-email').fill(user.email);
    await page.getByTestId('field-password').fill(user.password);
    await page.getByTestId('login-submit').click();
    await page.getByTestId('account-page').waitFor();
    await page.waitForFunction(() => document.documentElement.dir === 'rtl');
    assert.equal(await lang(page), 'ar rtl');
    assert.equal(await page.getByTestId('account-title').textContent(), locale('ar').account.title);

    at('screenshot');
    console.log(`screenshot: ${await saveScreenshot(page, 'e2e-language.png')}`);
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the pages');
  } catch (err) {
    throw await explainFailure(err, {
      step,
      screenshots: Object.fromEntries(Object.entries(pages).map(([name, p]) => [`e2e-language-failure-${name}.png`, p])),
      logs: { 'server output': server.output() },
    });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
});
