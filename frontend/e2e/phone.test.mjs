// Every main page on a phone, in English and in Arabic (right to left), and
// on a 1366 px laptop: a
// real gpunex server with the demo world, Chromium at 390 × 844, one tab
// per demo user (a visitor, a customer, an applicant asked for more
// information, the demo provider, an admin), each page opened in turn; the
// wordiest pages also in Spanish. A
// page fails if the document is wider than the screen or if any element's
// box leaves [0, 390] (content hidden behind a sideways scroll counts: a
// phone user does not find it), and the failure names the page, the
// language and the outermost offending elements (tag, classes, test id,
// text, where its box lies). A screenshot of each page is saved in the
// artifacts folder as phone-<language>-<page>.png.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { startServer } from './server.mjs';
import { graphql } from './session.mjs';
import { patience, testPatience } from './patience.mjs';

const PHONE = { width: 390, height: 844 };
const STEP_TIMEOUT = patience;
// Every page in English and in Arabic; the pages with the longest words
// and sentences (answers, an email, the tier cards, the pricing forms) in
// Spanish too, whose strings run longest.
const LANGUAGES = ['en', 'ar', 'es'];
const EVERY_PAGE = new Set(['en', 'ar']);
// Each page on a phone and on a laptop (1366 × 900, the width the
// dashboard was first reviewed at), the laptop in English and Arabic: the
// screenshots of both are what a reviewer looks at (phone-… and
// desktop-<language>-<page>.png).
const SCREENS = [
  { name: 'phone', languages: LANGUAGES, contextOptions: { viewport: PHONE, deviceScaleFactor: 1, isMobile: true, hasTouch: true } },
  { name: 'desktop', languages: ['en', 'ar'], contextOptions: { viewport: { width: 1366, height: 900 }, deviceScaleFactor: 1 } },
];
const PASSWORD = 'gpunex-demo';

// The pages each demo user opens; ready is what the page shows once its
// data came (its loading placeholder is also waited out).
const USERS = [
  {
    who: 'visitor',
    pages: [
      { name: 'home', path: '/', ready: '[data-testid="home-page"]' },
      { name: 'log-in', path: '/login', ready: '[data-testid="login-form"]' },
      { name: 'sign-up', path: '/signup', ready: '[data-testid="signup-form"]' },
    ],
  },
  {
    who: 'customer',
    email: 'customer@gpunex.demo',
    pages: [
      { name: 'account', path: '/account', ready: '[data-testid="account-page"]', spanish: true },
      { name: 'apply', path: '/provider/apply', ready: '[data-testid="apply-page"]', spanish: true },
      // The results come first; the filters wait in a closed drawer.
      { name: 'marketplace', path: '/marketplace', ready: '[data-testid="listing"], [data-testid="marketplace-empty"]', check: filtersClosed },
      // The drawer opened from the Filters button fits the screen too.
      { name: 'marketplace-filters', path: '/marketplace', ready: '[data-testid="listing"], [data-testid="marketplace-empty"]', check: openFilters },
      { name: 'rentals', path: '/rentals', ready: '[data-testid="rentals-page"]' },
    ],
  },
  {
    // Asked for more information: the reviewer's question and the answers.
    who: 'applicant',
    email: 'info@gpunex.demo',
    pages: [{ name: 'application', path: '/provider/application', ready: '[data-testid="application-page"], [data-testid="application-edit"]', spanish: true }],
  },
  {
    // Applies first (LONG_APPLICATION) with the longest values a form takes.
    who: 'long-applicant',
    email: 'research@gpunex.demo',
    apply: true,
    pages: [{ name: 'application-long', path: '/provider/application', ready: '[data-testid="application-page"]', spanish: true }],
  },
  {
    who: 'provider',
    email: 'provider@gpunex.demo',
    pages: [
      { name: 'overview', path: '/provider/overview', ready: '[data-testid="gpu-row"]' },
      { name: 'tokens', path: '/provider/tokens', ready: '[data-testid="tokens-page"]' },
      { name: 'provider-rentals', path: '/provider/rentals', ready: '[data-testid="provider-rentals-page"]' },
      { name: 'benchmarks', path: '/provider/benchmarks', ready: '[data-testid="benchmarks-page"]' },
      { name: 'pricing', path: '/provider/pricing', ready: '[data-testid="pricing-page"]', spanish: true },
      { name: 'earnings', path: '/provider/earnings', ready: '[data-testid="earnings-page"]' },
      { name: 'payouts', path: '/provider/payouts', ready: '[data-testid="payouts-page"]' },
      { name: 'performance', path: '/provider/performance', ready: '[data-testid="performance-page"]' },
    ],
  },
  {
    who: 'admin',
    email: 'admin@gpunex.demo',
    pages: [
      { name: 'admin-queue', path: '/admin/applications', ready: '[data-testid="queue-open"]' },
      // The long application (its answers and the applicant's email).
      { name: 'admin-review', path: null, ready: '[data-testid="admin-review-page"]', spanish: true },
      { name: 'admin-payouts', path: '/admin/payouts', ready: '[data-testid="admin-payouts-page"]' },
      { name: 'admin-reliability', path: '/admin/reliability', ready: '[data-testid="admin-reliability-page"]' },
    ],
  },
];

// LONG_APPLICATION's values are each one long word or a long sentence: an
// email and a company name without a space, notes of several lines.
const LONG_APPLICATION = {
  fullName: 'Rosa Maria Esperanza de los Santos Villanueva-Rodríguez',
  email: 'rosa.maria.esperanza.villanueva-rodriguez.infrastructure@research-computing-cooperative.example',
  company: 'Cooperativa-de-Investigación-en-Computación-de-Alto-Rendimiento-del-Mediterráneo',
  upsProtected: true,
  commitmentMonths: 12,
  maintenanceNotes:
    'Mantenimiento preventivo trimestral del sistema de alimentación ininterrumpida y de la refrigeración líquida, anunciado con dos semanas de antelación; ventana-de-mantenimiento-planificada-https://status.research-computing-cooperative.example/maintenance/2026/quarterly',
  gpus: [
    {
      modelKey: 'H100_SXM_80GB',
      quantity: 8,
      ramGb: 2048,
      uploadGbps: 10,
      downloadGbps: 10,
      availability: { kind: 'ALWAYS' },
      location: { city: 'Sant Cugat del Vallès', country: 'ES', region: 'eu-south-west-barcelona-metropolitan' },
    },
  ],
};

// filtersClosed checks the marketplace on a phone: the filters are out of
// the way (a closed drawer) and its Filters button says so.
async function filtersClosed(page, step) {
  assert.equal(await page.getByTestId('marketplace-filters').isVisible(), false, `${step}: the filters wait in a closed drawer`);
  assert.equal(await page.getByTestId('marketplace-filters-open').getAttribute('aria-expanded'), 'false', `${step}: the Filters button is collapsed`);
}

// openFilters opens the filters' drawer from the Filters button; the page
// is then checked with the drawer open, and the drawer's Close shuts it.
async function openFilters(page, step) {
  await filtersClosed(page, step);
  await page.getByTestId('marketplace-filters-open').click();
  await page.getByTestId('marketplace-filters').waitFor({ state: 'visible' });
  assert.equal(await page.getByTestId('marketplace-filters-open').getAttribute('aria-expanded'), 'true', `${step}: the Filters button is expanded`);
  assert.equal(await page.locator('select[name="filterCountry"]').isVisible(), true, `${step}: the country select is in the drawer`);
}

// logIn signs the context's user in through the API: the log-in form
// itself is one of the pages checked.
async function logIn(context, server, email) {
  const data = await graphql(context, server, 'mutation($input: LogInInput!) { logIn(input: $input) { userErrors { field code } } }', { input: { email, password: PASSWORD } });
  assert.deepEqual(data.logIn.userErrors, [], `${email} logs in`);
}

// setLanguage stores language on the context's signed-in account.
async function setLanguage(context, server, language) {
  const data = await graphql(context, server, 'mutation($language: Language!) { setLanguage(language: $language) { userErrors { field code } } }', {
    language: language.toUpperCase(),
  });
  assert.deepEqual(data.setLanguage.userErrors, [], `the account's language is set to ${language}`);
}

// applyLong submits LONG_APPLICATION as the context's user and returns its id.
async function applyLong(context, server) {
  const data = await graphql(
    context,
    server,
    'mutation($input: ProviderApplicationInput!) { submitProviderApplication(input: $input) { application { id } userErrors { field code } } }',
    { input: LONG_APPLICATION },
  );
  assert.deepEqual(data.submitProviderApplication.userErrors, [], 'the long application is accepted');
  return data.submitProviderApplication.application.id;
}

// overflowing runs in the page: the document's width, and the outermost
// elements whose box leaves [0, innerWidth] (their descendants are not
// listed again). Visually hidden boxes (clipped to nothing, for screen
// readers) and boxes of no size are passed over.
function overflowing() {
  const width = window.innerWidth;
  const slack = 0.5;
  const hidden = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || s.clipPath === 'inset(50%)') return true;
      if (e.classList.contains('visually-hidden')) return true;
    }
    return false;
  };
  const out = [];
  const found = new Set();
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.left >= -slack && r.right <= width + slack) continue;
    let parent = el.parentElement;
    while (parent && !found.has(parent)) parent = parent.parentElement;
    if (parent) continue;
    if (hidden(el)) continue;
    found.add(el);
    out.push({
      tag: el.tagName.toLowerCase(),
      className: typeof el.className === 'string' ? el.className : (el.getAttribute('class') ?? ''),
      testId: el.closest('[data-testid]')?.getAttribute('data-testid') ?? '',
      text: (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60),
      left: Math.round(r.left),
      right: Math.round(r.right),
    });
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, elements: out };
}

function describe(o) {
  const cls = o.className ? `.${o.className.trim().split(/\s+/).join('.')}` : '';
  const id = o.testId ? ` in [data-testid="${o.testId}"]` : '';
  return `<${o.tag}${cls}>${id} "${o.text}" spans ${o.left}..${o.right} px`;
}

test('phone and desktop: every main page fits a 390 px and a 1366 px screen in English and in Arabic (and the wordiest in Spanish on the phone), with no Content-Security-Policy violation', { timeout: testPatience() }, async () => {
  const server = await startServer();
  let browser;
  let step = 'start';
  const pageErrors = [];
  const failures = [];
  const screens = {};
  let reviewPath = null;
  try {
    browser = await launchBrowser();
    for (const screen of SCREENS) for (const user of USERS) {
      const page = await openPage(browser, {
        errors: pageErrors,
        timeout: STEP_TIMEOUT(),
        name: `${user.who} (${screen.name})`,
        contextOptions: screen.contextOptions,
      });
      screens[`${screen.name}-failure-${user.who}.png`] = page;
      // Every Content-Security-Policy violation a page meets is recorded.
      await page.addInitScript(() => {
        window.__cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) =>
          window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`),
        );
      });
      if (user.email) await logIn(page.context(), server, user.email);
      if (user.apply && reviewPath === null) reviewPath = `/admin/applications/${await applyLong(page.context(), server)}`;
      for (const language of screen.languages) {
        const pages = user.pages.filter((p) => EVERY_PAGE.has(language) || p.spanish);
        if (pages.length === 0) continue;
        // A visitor's language is the one stored in the browser; a signed-in
        // user's is the account's, which the SPA adopts on load.
        await page.goto(`${server.url}/`);
        await page.evaluate((lng) => window.localStorage.setItem('gpunex.language', lng), language);
        if (user.email) await setLanguage(page.context(), server, language);
        for (const p of pages) {
          step = `${p.name} in ${language} (${user.who}, ${screen.name})`;
          const path = p.path ?? reviewPath;
          const started = Date.now();
          await page.goto(`${server.url}${path}`);
          await page.locator(p.ready).first().waitFor();
          await page.waitForFunction(() => document.querySelector('[data-testid="loading"]') === null);
          await page.evaluate(() => document.fonts.ready);
          if (p.check && screen.name === 'phone') await p.check(page, step);
          const dir = language === 'ar' ? 'rtl' : 'ltr';
          const lang = await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]);
          assert.deepEqual(lang, [language, dir], `${step}: the page is in ${language}, ${dir}`);
          const o = await page.evaluate(overflowing);
          await saveScreenshot(page, `${screen.name}-${language}-${p.name}.png`);
          console.log(`${p.name} (${language}, ${screen.name}): ${o.scrollWidth} px wide, ${o.elements.length} overflowing, ${Date.now() - started} ms`);
          const violations = await page.evaluate(() => window.__cspViolations ?? []);
          if (violations.length > 0) failures.push(`${p.name} in ${language} (${path}): Content-Security-Policy violations: ${violations.join('; ')}`);
          if (p.check === openFilters && screen.name === 'phone') {
            await page.getByTestId('marketplace-filters-close').click();
            await page.getByTestId('marketplace-filters').waitFor({ state: 'hidden' });
          }
          if (o.scrollWidth > o.innerWidth || o.elements.length > 0) {
            const lines = o.elements.slice(0, 8).map((e) => `    ${describe(e)}`);
            if (o.elements.length > 8) lines.push(`    … and ${o.elements.length - 8} more`);
            failures.push(`${p.name} in ${language} (${path}, ${screen.name}): the document is ${o.scrollWidth} px wide on a ${o.innerWidth} px screen\n${lines.join('\n')}`);
          }
        }
      }
    }
    step = 'the pages checked';
    assert.deepEqual(pageErrors, [], 'no uncaught error in any page');
    assert.equal(failures.length, 0, `wider than the screen:\n${failures.join('\n')}`);
  } catch (err) {
    throw await explainFailure(err, { step, screenshots: screens, logs: { server: server.output() } });
  } finally {
    await browser?.close();
    await server.stop();
  }
});
