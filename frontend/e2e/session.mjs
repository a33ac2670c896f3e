// session.mjs signs test users in and speaks GraphQL as them, the two
// things most end-to-end tests do before what they test.
import assert from 'node:assert/strict';

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
  await page.getByTestId('header').locator('[data-testid="nav-account"]').waitFor();
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
