// browser.mjs launches Debian's Chromium through playwright-core: no browser
// download, just the system binary (CHROMIUM_PATH overrides its path).
import { chromium } from 'playwright-core';

/** CHROMIUM_ARGS keep headless Chromium quiet and off the network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** launchBrowser starts Chromium; close it with browser.close(). */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

/**
 * openPage opens a page in a new context (en-US, with contextOptions such as
 * viewport, and timeout as every step's default) or, given context, in that
 * one: another tab with the same cookies. The page's uncaught errors are
 * pushed onto errors, prefixed with name when there is one; its console
 * errors are logged.
 */
export async function openPage(browser, { errors, timeout, contextOptions, context, name }) {
  if (!context) {
    context = await browser.newContext({ locale: 'en-US', ...contextOptions });
    context.setDefaultTimeout(timeout);
  }
  const page = await context.newPage();
  const prefix = name ? `${name}: ` : '';
  page.on('pageerror', (err) => errors.push(`${prefix}${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') console.log(`${prefix}browser console error: ${msg.text()}`);
  });
  return page;
}
