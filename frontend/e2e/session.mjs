// session.mjs signs test users in and speaks GraphQL as them, the two
// things most end-to-end tests do before what they test.
import assert from 'node:assert/strict';
import { errors } from 'playwright-core';

/** API_HEADERS are the SPA's own: JSON, and the CSRF header the cookie needs. */
export const API_HEADERS = { 'content-type': 'application/json', 'X-GPUnex-CSRF': '1' };

/**
 * logInThroughForm signs who ({ email, password }) in on the page's log-in
 * form, as a person would, and waits for the signed-in header.
 */
export async function logInThroughForm(page, server, who) {
  await page.goto(`${server.url}/login`);
  await page.getByTestId('field-email').fill(who.email);
  await page.getByTestId('field-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('header').locator('[data-testid="nav-account"]').waitFor({ state: 'attached' });
  // The log-in sends the user on to their landing page: wait until it has,
  // so a menu opened next is not closed by that navigation.
  await page.waitForURL((url) => url.pathname !== '/login');
}

/**
 * navigate follows the header's link with testId (nav-earnings, …) as a
 * person would: on a phone it opens the menu first, on a desktop the
 * group the link is in (Fleet, Money, Admin, Account), if it is not in
 * the row itself. It returns when the link was clicked.
 */
export async function navigate(page, testId) {
  const link = page.getByTestId('header').getByTestId(testId);
  await link.waitFor({ state: 'attached' });
  for (;;) {
    if (!(await link.isVisible())) {
      const toggle = page.getByTestId('nav-toggle');
      const opener = (await toggle.isVisible()) ? toggle : page.getByTestId(`nav-group-${await link.getAttribute('data-group')}`);
      if ((await opener.getAttribute('aria-expanded')) !== 'true') await opener.click();
    }
    try {
      // A short try, then another: any navigation (a redirect, a live
      // update changing the page) closes an open menu, and a click
      // waiting for a link that stays hidden would wait for good.
      await link.click({ timeout: 2_000 });
      return;
    } catch (err) {
      if (!(err instanceof errors.TimeoutError)) throw err;
    }
  }
}

/**
 * graphql runs query with variables as the context's user (its session
 * cookie) and returns the data, failing on an HTTP or GraphQL error.
 */
export async function graphql(context, server, query, variables = {}) {
  const res = await context.request.post(`${server.url}/graphql`, { headers: API_HEADERS, data: { query, variables } });
  const body = await res.json();
  assert.equal(res.status(), 200, JSON.stringify(body));
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}
