// artifacts.mjs: what the end-to-end tests leave in the artifacts folder
// (GPUNEX_ARTIFACTS): the last screen of a run, and on failure a screenshot
// of each page and an error that says where it stopped and what the
// processes printed.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { frontendDir } from './server.mjs';

/** artifactsDir is GPUNEX_ARTIFACTS, or ../artifacts from the frontend folder. */
export function artifactsDir() {
  return resolve(frontendDir, process.env.GPUNEX_ARTIFACTS ?? '../artifacts');
}

/** LOG_TAIL is how much of each log a failure message carries, from the end. */
const LOG_TAIL = 4000;

/** saveScreenshot saves a full-page screenshot of page as file in the artifacts folder and returns its path. */
export async function saveScreenshot(page, file) {
  mkdirSync(artifactsDir(), { recursive: true });
  const path = join(artifactsDir(), file);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * explainFailure saves a screenshot of each page still open (screenshots
 * maps a file name to a page; a missing or closed page is passed over),
 * then puts the step the test had reached before err's message and the
 * tail of each log after it (logs maps a title to an output). It returns
 * err, for the caller to throw.
 */
export async function explainFailure(err, { step, screenshots = {}, logs = {} }) {
  for (const [file, page] of Object.entries(screenshots)) {
    if (!page) continue;
    try {
      await saveScreenshot(page, file);
    } catch {
      // the page may be gone; the error says what failed
    }
  }
  const where = step === undefined ? '' : `step "${step}": `;
  const tails = Object.entries(logs)
    .map(([title, output]) => `\n--- ${title} ---\n${output.slice(-LOG_TAIL)}`)
    .join('');
  err.message = `${where}${err.message}${tails}`;
  return err;
}
