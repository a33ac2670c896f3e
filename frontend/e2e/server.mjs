// server.mjs starts a real `gpunex serve` for the end-to-end tests: a fresh
// data directory, a free loopback port, the demo world, and a stop() that is
// safe to call twice and also runs if the test process dies.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** frontendDir is the SPA's folder; relative env paths resolve against it. */
export const frontendDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** serverBinary is GPUNEX_BIN, or ../bin/gpunex from the frontend folder. */
export function serverBinary() {
  return resolve(frontendDir, process.env.GPUNEX_BIN ?? '../bin/gpunex');
}

const READY = /http:\/\/127\.0\.0\.1:\d+/;

/**
 * startServer runs the binary with --addr 127.0.0.1:0 and resolves with the
 * URL it prints once ready. The returned output() is the server's stdout and
 * stderr so far, for failure messages.
 */
export async function startServer({ timeoutMs = 60_000, extraArgs = [] } = {}) {
  const bin = serverBinary();
  if (!existsSync(bin)) {
    throw new Error(`server binary ${bin} not found: run make build at the repository root, or set GPUNEX_BIN`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'gpunex-e2e-'));
  const child = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--data-dir', dataDir, '--demo', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
  });
  let log = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });

  let stopped = false;
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  const onProcessExit = () => child.kill('SIGKILL');
  process.once('exit', onProcessExit);

  async function stop() {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onProcessExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }

  try {
    const url = await new Promise((resolveUrl, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`server did not print its URL within ${timeoutMs} ms`)),
        timeoutMs,
      );
      child.stdout.on('data', (chunk) => {
        log += chunk;
        const match = READY.exec(log);
        if (match) {
          clearTimeout(timer);
          resolveUrl(match[0]);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`server exited before it was ready (code ${code}, signal ${signal})`));
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    return { url, dataDir, stop, output: () => log };
  } catch (err) {
    await stop();
    err.message += `\n--- server output ---\n${log}`;
    throw err;
  }
}
