// browser.mjs launches Debian's Chromium through playwright-core: no browser
// download, just the system binary (CHROMIUM_PATH overrides its path).
import { chromium } from 'playwright-core';
import { keepPatient } from './patience.mjs';

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

/** CHROMIUM_PATH is the browser binary: Debian's, unless the variable says. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * launchBrowser connects to the Chromium that e2e/run.mjs shares among the
 * test files (GPUNEX_BROWSER_WS), or starts one when a file runs alone;
 * browser.close() disconnects from the shared one (closing this file's
 * contexts) or stops the one it started.
 */
export function launchBrowser() {
  const shared = process.env.GPUNEX_BROWSER_WS;
  if (shared) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * openPage opens a page in a new context (en-US, with contextOptions such as
 * viewport, and patience() as every step's default: keepPatient) or, given context, in that
 * one: another tab with the same cookies. The page's uncaught errors are
 * pushed onto errors, prefixed with name when there is one; its console
 * errors are logged.
 */
export async function openPage(browser, { errors, contextOptions, context, name }) {
  if (!context) context = keepPatient(await browser.newContext({ locale: 'en-US', ...contextOptions }));
  const page = await context.newPage();
  const prefix = name ? `${name}: ` : '';
  page.on('pageerror', (err) => errors.push(`${prefix}${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') console.log(`${prefix}browser console error: ${msg.text()}`);
  });
  return page;
}
