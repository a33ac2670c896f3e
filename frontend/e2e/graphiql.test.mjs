// GraphiQL offline (point 13 of issue 11): a real gpunex server, a real
// Chromium that may reach nothing but that server (every other request is
// aborted, as without internet), and GraphiQL as the binary embeds it. It
// loads under the server's Content-Security-Policy without one violation,
// runs a query as the signed-in user (the session cookie and the CSRF
// header, as the SPA sends them) and a subscription over
// graphql-transport-ws (the cookie on the upgrade), and its documentation explorer shows the
// schema, which needs the standard introspection query to pass the
// operation limits; its dialogs open too. The last screen is saved as artifacts/e2e-graphiql.png.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { startServer } from './server.mjs';
import { testPatience } from './patience.mjs';

const PROVIDER = { email: 'provider@gpunex.demo', password: 'gpunex-demo' };
const HEADERS = { 'content-type': 'application/json', 'X-GPUnex-CSRF': '1' };

test('GraphiQL loads offline under a strict CSP, runs a query and a subscription as the session user and documents the schema', { timeout: testPatience() }, async () => {
  const server = await startServer();
  const origin = new URL(server.url).origin;
  let browser;
  let page;
  let step = 'start';
  const pageErrors = [];
  const consoleErrors = [];
  const blocked = [];
  const at = (label) => {
    step = label;
    console.log(`step: ${label}`);
  };

  try {
    browser = await launchBrowser();
    page = await openPage(browser, { errors: pageErrors, contextOptions: { viewport: { width: 1280, height: 860 } } });
    const context = page.context();
    // Offline: only the server's own origin answers (its WebSocket too,
    // which page.route does not see: it is same-origin by the page's CSP).
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      blocked.push(url);
      return route.abort('internetdisconnected');
    });
    // Every CSP violation, as the page sees it (the init script is the
    // browser's, not the page's, so the policy does not apply to it).
    await context.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => {
        window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
      });
    });
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    // The types of the messages the server sends on GraphiQL's WebSocket,
    // read through the DevTools protocol: with context.route on,
    // Playwright reports no 'websocket' event.
    const received = [];
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    cdp.on('Network.webSocketFrameReceived', ({ response }) => {
      try {
        received.push(JSON.parse(response.payloadData).type);
      } catch {
        // not JSON: not ours to judge
      }
    });

    at('sign in through the API, as the SPA would');
    const res = await context.request.post(`${server.url}/graphql`, {
      headers: HEADERS,
      data: { query: 'mutation($input: LogInInput!) { logIn(input: $input) { userErrors { code } } }', variables: { input: PROVIDER } },
    });
    assert.equal(res.status(), 200);
    assert.deepEqual((await res.json()).data.logIn.userErrors, []);

    at('open /graphiql and wait for the editor');
    const answer = await page.goto(`${server.url}/graphiql`);
    const csp = answer.headers()['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'/, 'the page is served with its policy');
    assert.doesNotMatch(csp, /unsafe/, 'no unsafe-inline or unsafe-eval');
    const queryEditor = page.locator('.graphiql-query-editor .CodeMirror');
    await queryEditor.waitFor();

    at('run a query as the signed-in user');
    await page.evaluate(() => {
      document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('{ __typename me { email } }');
    });
    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response .CodeMirror');
    await response.getByText(PROVIDER.email).waitFor();
    const result = await response.evaluate((el) => el.CodeMirror.getValue());
    assert.deepEqual(JSON.parse(result), { data: { __typename: 'Query', me: { email: PROVIDER.email } } });

    at('subscribe over graphql-transport-ws as the signed-in user');
    await page.evaluate(() => {
      document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('subscription { notificationAdded(afterId: "0") { id } }');
    });
    await page.locator('.graphiql-execute-button').click();
    // afterId "0" replays the demo provider's notifications at once.
    await response.getByText('notificationAdded').waitFor();
    const live = JSON.parse(await response.evaluate((el) => el.CodeMirror.getValue()));
    assert.match(live.data.notificationAdded.id, /^\d+$/, JSON.stringify(live));
    // DevTools reports the frames on its own channel, which may trail the page.
    for (let i = 0; i < 50 && !(received.includes('connection_ack') && received.includes('next')); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(received.includes('connection_ack') && received.includes('next'), `graphql-transport-ws messages: ${received}`);
    // Stop it (the button runs or stops), so the socket's work ends.
    await page.locator('.graphiql-execute-button').click();

    at('open the documentation explorer and find a type of our schema');
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await docs.locator('.graphiql-doc-explorer-root-type').first().waitFor();
    await docs.locator('a', { hasText: /^Query$/ }).first().click();
    await docs.locator('.graphiql-doc-explorer-field-name', { hasText: /^supportedGpuModels$/ }).waitFor();
    await docs.locator('.graphiql-doc-explorer-field-name', { hasText: /^me$/ }).click();
    await docs.locator('.graphiql-doc-explorer-title', { hasText: /^me$/ }).waitFor();
    await docs.locator('a', { hasText: /^User$/ }).first().click();
    await docs.locator('.graphiql-doc-explorer-title', { hasText: /^User$/ }).waitFor();
    await docs.locator('.graphiql-doc-explorer-field-name', { hasText: /^email$/ }).waitFor();

    at('open the settings and the short keys dialogs (they add a <style> element, with the nonce)');
    for (const name of ['Open settings dialog', 'Open short keys dialog']) {
      await page.getByRole('button', { name }).click();
      await page.getByRole('dialog').waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    }

    at('no CSP violation, no error, nothing fetched from elsewhere');
    const violations = await page.evaluate(() => window.__cspViolations);
    assert.deepEqual(violations, [], 'CSP violations');
    assert.deepEqual(consoleErrors, [], 'console errors');
    assert.deepEqual(pageErrors, [], 'uncaught errors');
    assert.deepEqual(blocked, [], 'requests to other origins');

    await saveScreenshot(page, 'e2e-graphiql.png');
  } catch (err) {
    throw await explainFailure(err, { step, screenshots: { 'e2e-graphiql-failure.png': page }, logs: { 'gpunex serve': server.output() } });
  } finally {
    await browser?.close();
    await server.stop();
  }
});
