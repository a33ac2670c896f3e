// Price advice end to end: a real gpunex server with the demo world (its
// providers in Lisbon, Porto, Frankfurt and elsewhere, whose supply the
// market refresh reads at start) and Chromium on the embedded SPA. The
// demo provider opens the Pricing tab and finds, beside its H100 rate, the
// recommended and the current rate with their expected utilisation and
// monthly earnings, the market's percentiles (or a starting price when
// there is no market), the curve with both rates marked and the reasons in
// words; one click applies the recommendation, the card and the advice
// show the new rate, and the Marketplace (page and GraphQL) lists the
// provider's Lisbon H100s at it. The tab is taken at 390 px in English and
// in Arabic and must not be wider than the screen. Screens are saved as
// artifacts/e2e-pricing*.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { explainFailure, saveScreenshot } from './artifacts.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { frontendDir, startServer } from './server.mjs';
import { logInThroughForm, navigate } from './session.mjs';
import { keepPatient, patience, testPatience } from './patience.mjs';

const locale = (name) => JSON.parse(readFileSync(join(frontendDir, 'src', 'i18n', 'locales', `${name}.json`), 'utf8'));
const en = locale('en');
const ar = locale('ar');

// The demo's machines register and are benchmarked within seconds.
const LIST_TIMEOUT = patience;
const plain = (s) => (s ?? '').replace(/[\u2068\u2069]/g, '').trim();
const PROVIDER = { email: 'provider@gpunex.demo', password: 'gpunex-demo' };
const MODEL = 'H100_SXM_80GB';
const PHONE = { width: 390, height: 844 };
// usdc writes an amount as the SPA's formatUsdc does in English.
const usdc = (amount) => new Intl.NumberFormat('en', { minimumFractionDigits: 6, maximumFractionDigits: 6 }).format(amount);
// fill puts values into an English template of the locale file.
const fill = (template, values) => template.replace(/\{\{(\w+)\}\}/g, (_m, name) => String(values[name]));
const micros = (amount) => Math.round(Number(amount) * 1e6);

const MARKETPLACE = `query($filter: MarketplaceFilter) {
  marketplace(filter: $filter, first: 50) { edges { node { id modelKey pricePerHour gpuCount location { city country } } } }
}`;

// adviceAttribute is an attribute of the model's advice section, in the page.
const adviceAttribute = (page, name) =>
  page.evaluate(([model, attr]) => document.querySelector(`[data-testid="price-model"][data-model="${model}"] [data-testid="price-advice"]`)?.getAttribute(attr) ?? null, [MODEL, name]);

// waitForAdvice waits until the model's advice is loaded and not being fetched again, with current as its current rate when given.
function waitForAdvice(page, current) {
  return page.waitForFunction(
    ([model, want]) => {
      const el = document.querySelector(`[data-testid="price-model"][data-model="${model}"] [data-testid="price-advice"]`);
      if (!el || el.getAttribute('data-recommended') === '' || el.getAttribute('data-fetching') === 'true') return false;
      return want === null || el.getAttribute('data-current') === want;
    },
    [MODEL, current ?? null],
  );
}

test(
  'pricing: the demo provider reads the price advice for its H100s on the Pricing tab, applies it with one click, and the Marketplace lists its Lisbon H100s at the new rate',
  { timeout: testPatience() },
  async () => {
    const server = await startServer();
    let browser;
    let provider;
    let customer;
    let phone;
    let step = 'start';
    const pageErrors = [];
    const at = (label) => {
      step = label;
      console.log(`step: ${label}`);
    };

    try {
      browser = await launchBrowser();
      const desktop = { viewport: { width: 1360, height: 1000 } };
      provider = await openPage(browser, { errors: pageErrors, contextOptions: desktop, name: 'provider' });
      const text = async (locator) => plain(await locator.textContent());

      at('the demo provider opens the Pricing tab: its H100s have price advice');
      await logInThroughForm(provider, server, PROVIDER);
      await navigate(provider, 'nav-pricing');
      await provider.getByTestId('pricing-page').waitFor();
      await provider.evaluate(() => {
        window.__gpunexNoReload = true;
      });
      const card = provider.locator(`[data-testid="price-model"][data-model="${MODEL}"]`);
      const advice = card.getByTestId('price-advice');
      await advice.waitFor();
      await waitForAdvice(provider);
      assert.equal(await text(advice.locator('h4')), en.pricing.advice.title);

      at('the advice gives the recommended and the current rate with their utilisation and monthly earnings');
      let current = await card.getAttribute('data-price');
      assert.ok(current, 'the demo provider has priced its H100s');
      assert.equal(await adviceAttribute(provider, 'data-current'), current, 'the current outcome is at the current rate');
      let recommended = await adviceAttribute(provider, 'data-recommended');
      console.log(`recommended ${recommended}, current ${current}, basis ${await adviceAttribute(provider, 'data-basis')}`);
      const outcome = advice.getByTestId('price-outcome-recommended');
      assert.equal(await text(outcome.locator('.price-outcome-rate')), `${usdc(recommended)} USDC/h`);
      assert.match(await text(outcome.getByTestId('price-outcome-utilization')), /^\d{1,3}%$/);
      assert.match(await text(outcome.getByTestId('price-outcome-earnings')), /^[\d,]+\.\d{6} USDC$/);
      assert.match(await text(advice.getByTestId('price-outcome-current').getByTestId('price-outcome-earnings')), /^[\d,]+\.\d{6} USDC$/);
      assert.equal(await text(advice.getByTestId('price-advice-fee')), fill(en.pricing.advice.afterFee, { fee: '15%', hours: '730' }));

      at('the market: percentiles, counts and where they come from, or a starting price');
      const market = advice.getByTestId('price-market');
      if ((await adviceAttribute(provider, 'data-basis')) === 'MARKET') {
        const level = await market.getAttribute('data-level');
        assert.ok(['CITY', 'COUNTRY', 'CONTINENT', 'WORLD'].includes(level), `level ${level}`);
        const region = await text(market.getByTestId('price-market-region'));
        if (level === 'WORLD') assert.equal(region.toLowerCase(), en.pricing.advice.region.WORLD.toLowerCase());
        else assert.ok(region.endsWith(`(${en.pricing.advice.level[level]})`), region);
        const percentiles = [];
        for (const p of ['p10', 'p50', 'p90']) {
          const m = /^([\d,.]+) USDC\/h$/.exec(await text(market.getByTestId(`price-market-${p}`)));
          assert.ok(m, `${p} is a rate`);
          percentiles.push(Number(m[1].replace(/,/g, '')));
        }
        assert.ok(percentiles[0] <= percentiles[1] && percentiles[1] <= percentiles[2], `p10 ≤ p50 ≤ p90: ${percentiles}`);
        assert.ok(Number(await text(market.getByTestId('price-market-gpus'))) >= 1);
        assert.ok(Number(await text(market.getByTestId('price-market-providers'))) >= 1);
      } else {
        assert.equal(await text(market.getByTestId('price-market-none')), fill(en.pricing.advice.market.none, { price: usdc(recommended) }));
      }

      at('the curve: utilisation and earnings against the rate, the recommended and the current rate marked');
      for (const id of ['price-curve-utilization', 'price-curve-earnings']) {
        const chart = advice.getByTestId(id);
        await chart.locator('canvas').first().waitFor();
        assert.ok(Number(await chart.getAttribute('data-points')) >= 2, `${id} has points`);
        const marks = await chart.getByTestId('chart-mark').evaluateAll((els) => els.map((el) => el.getAttribute('data-label')));
        assert.deepEqual(marks, [en.pricing.advice.chart.recommendedMark, en.pricing.advice.chart.currentMark]);
        assert.equal(await text(chart.getByTestId('chart-at')), `${en.pricing.advice.chart.rate}: ${usdc(recommended)}`, 'the legend rests at the recommended rate');
      }

      at('the reasons, each a sentence in English from its code and numbers');
      const reasons = await advice.getByTestId('price-reason').evaluateAll((els) => els.map((el) => ({ code: el.getAttribute('data-code'), text: el.textContent })));
      assert.ok(reasons.length >= 2, `reasons: ${JSON.stringify(reasons)}`);
      for (const r of reasons) {
        assert.ok(r.code in en.pricing.advice.reasons, `a known code: ${r.code}`);
        assert.ok(plain(r.text).length > 10 && !/\{\{|pricing\.|—/.test(r.text), `a whole sentence: ${r.text}`);
      }
      const peak = reasons.find((r) => r.code === 'REVENUE_PEAK');
      if (peak) assert.match(plain(peak.text), new RegExp(`^Expected revenue peaks at ${usdc(recommended).replace(/\./g, '\\.')} USDC/h, with \\d{1,3}% of hours rented\\.$`));
      console.log(`screenshot: ${await saveScreenshot(provider, 'e2e-pricing-advice.png')}`);

      if (micros(current) === micros(recommended)) {
        at('the rate is already the recommended one: another is set first, and the advice follows it');
        const other = (micros(recommended) + 500_000) / 1e6;
        await card.getByTestId(`field-${MODEL}.pricePerHour`).fill(String(other));
        await card.getByTestId('price-save').click();
        await card.getByTestId('price-saved').waitFor();
        current = (await card.getAttribute('data-price')) ?? '';
        await waitForAdvice(provider, current);
        recommended = await adviceAttribute(provider, 'data-recommended');
      }

      at('one click applies the recommendation: the card and the advice show the new rate');
      const apply = advice.getByTestId('price-apply');
      assert.equal(await text(apply), fill(en.pricing.advice.apply, { price: usdc(recommended) }));
      await apply.click();
      await provider.waitForFunction(([model, price]) => document.querySelector(`[data-testid="price-model"][data-model="${model}"]`)?.getAttribute('data-price') === price, [MODEL, recommended]);
      await card.getByTestId('price-saved').waitFor();
      assert.equal(await text(card.getByTestId('price-saved')), fill(en.pricing.rates.saved, { price: usdc(recommended) }));
      assert.match(await text(card.getByTestId('price-current')), new RegExp(`^${usdc(recommended).replace(/\./g, '\\.')} USDC per GPU per hour, since `));
      assert.equal(await card.getByTestId('price-history-item').first().getAttribute('data-price'), recommended);
      await waitForAdvice(provider, recommended);
      assert.equal(await text(advice.getByTestId('price-advice-current')), en.pricing.advice.isCurrent);
      assert.equal(await advice.getByTestId('price-apply').count(), 0, 'nothing left to apply');
      assert.equal(await provider.evaluate(() => window.__gpunexNoReload), true, 'the Pricing tab was not reloaded');

      at('the Marketplace query lists the provider\'s Lisbon H100s at the new rate');
      // The demo's machines are listed once registered and benchmarked,
      // seconds after the server starts; the demo customers may hold some
      // GPUs, never all.
      let listings = [];
      let lisbon = [];
      const deadline = Date.now() + patience();
      for (;;) {
        const res = await provider.context().request.post(`${server.url}/graphql`, {
          headers: { 'content-type': 'application/json', 'X-GPUnex-CSRF': '1' },
          data: { query: MARKETPLACE, variables: { filter: { model: MODEL } } },
        });
        const body = await res.json();
        assert.equal(res.status(), 200, JSON.stringify(body));
        listings = body.data.marketplace.edges.map((e) => e.node);
        lisbon = listings.filter((l) => (l.location.city ?? '').toLowerCase() === 'lisbon');
        if (lisbon.length > 0) break;
        if (Date.now() > deadline) assert.fail(`no Lisbon H100 listing within ${LIST_TIMEOUT() / 1000} s: ${JSON.stringify(listings)}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
      assert.deepEqual(
        lisbon.map((l) => l.pricePerHour),
        lisbon.map(() => recommended),
        'every Lisbon H100 listing at the applied rate',
      );

      at('a customer\'s Marketplace page shows that listing at the new rate');
      customer = await openPage(browser, { errors: pageErrors, contextOptions: desktop, name: 'customer' });
      await customer.goto(`${server.url}/marketplace?model=${MODEL}`);
      await customer.getByTestId('marketplace-page').waitFor();
      await customer.waitForFunction(() => document.querySelector('[data-testid="marketplace-page"]')?.getAttribute('data-loaded') === 'true');
      const listing = customer.locator(`[data-testid="listing"][data-id="${lisbon[0].id}"]`);
      await listing.waitFor();
      assert.equal(await listing.getAttribute('data-price'), recommended);
      assert.equal(await text(listing.getByTestId('listing-price')), `${usdc(recommended)} USDC/h`);
      console.log(`screenshot: ${await saveScreenshot(customer, 'e2e-pricing-marketplace.png')}`);

      at('on a 390 px phone the Pricing tab is no wider than the screen, in English and in Arabic');
      const context = await browser.newContext({ locale: 'en-US', viewport: PHONE, storageState: await provider.context().storageState() });
      keepPatient(context);
      phone = await openPage(browser, { errors: pageErrors, context, name: 'phone' });
      await phone.goto(`${server.url}/`);
      for (const language of ['en', 'ar']) {
        await phone.evaluate((lng) => window.localStorage.setItem('gpunex.language', lng), language);
        await phone.goto(`${server.url}/provider/pricing`);
        await phone.getByTestId('pricing-page').waitFor();
        await phone.waitForFunction((lng) => document.documentElement.lang === lng, language);
        await waitForAdvice(phone, recommended);
        const phoneAdvice = phone.locator(`[data-testid="price-model"][data-model="${MODEL}"] [data-testid="price-advice"]`);
        await phoneAdvice.getByTestId('price-curve-earnings').locator('canvas').first().waitFor();
        const width = await phone.evaluate(() => ({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth }));
        await phoneAdvice.scrollIntoViewIfNeeded();
        console.log(`screenshot: ${await saveScreenshot(phone, `e2e-pricing-390-${language}.png`)}`);
        assert.ok(width.scroll <= PHONE.width, `the Pricing tab in ${language}: ${width.scroll} px wide on a ${PHONE.width} px screen`);
        if (language === 'ar') {
          assert.equal(await phone.evaluate(() => document.documentElement.dir), 'rtl');
          assert.equal(plain(await phoneAdvice.locator('h4').textContent()), ar.pricing.advice.title);
          assert.equal(plain(await phoneAdvice.getByTestId('price-advice-current').textContent()), ar.pricing.advice.isCurrent);
          const arabic = await phoneAdvice.getByTestId('price-reason').evaluateAll((els) => els.map((el) => el.textContent ?? ''));
          assert.ok(arabic.length > 0 && arabic.every((s) => /[\u0600-\u06FF]/.test(s)), `the reasons in Arabic: ${arabic}`);
        }
      }
      await context.close();
      phone = undefined;

      assert.equal(await provider.getByTestId('error-notice').count(), 0, 'no request of the provider failed');
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the pages');
    } catch (err) {
      throw await explainFailure(err, {
        step,
        screenshots: {
          'e2e-pricing-failure-provider.png': provider,
          ...(customer && { 'e2e-pricing-failure-customer.png': customer }),
          ...(phone && { 'e2e-pricing-failure-390.png': phone }),
        },
        logs: { 'server output': server.output() },
      });
    } finally {
      await browser?.close().catch(() => {});
      await server.stop();
    }
  },
);
