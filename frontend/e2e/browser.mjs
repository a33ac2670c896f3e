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
