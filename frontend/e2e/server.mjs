// server.mjs starts a real `gpunex serve` for the end-to-end tests: a fresh
// data directory, a free loopback port, the demo world, and a stop() that is
// safe to call twice and also runs if the test process dies. On SQLite in
// the data directory by default; on PostgreSQL (database: 'postgres') in a
// database of its own on GPUNEX_TEST_DATABASE_URL's server, dropped by stop().
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { patience } from './patience.mjs';

/** frontendDir is the SPA's folder; relative env paths resolve against it. */
export const frontendDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** serverBinary is GPUNEX_BIN, or ../bin/gpunex from the frontend folder. */
export function serverBinary() {
  return resolve(frontendDir, process.env.GPUNEX_BIN ?? '../bin/gpunex');
}

const READY = /http:\/\/127\.0\.0\.1:\d+/;

/**
 * databases are the backends a test can run on here: SQLite always,
 * PostgreSQL when GPUNEX_TEST_DATABASE_URL is set (make test sets it).
 */
export function databases() {
  return process.env.GPUNEX_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** psql runs one SQL command on the test PostgreSQL server, failing loudly. */
function psql(base, sql) {
  const run = spawnSync('psql', [base, '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    encoding: 'utf8',
    env: { ...process.env, PGOPTIONS: '--client-min-messages=warning' },
  });
  if (run.error || run.status !== 0) {
    throw new Error(`psql ${sql}: ${run.error?.message ?? run.stderr}`);
  }
}

/**
 * postgresDatabase creates a database of its own on GPUNEX_TEST_DATABASE_URL's
 * server and returns the URL gpunex takes and a drop() for the end. A
 * database, not a schema: the platform's leases (PostgreSQL advisory
 * locks) are per database, as a deployment is (docs/operating.md), so two
 * servers the runner starts at once each lead their own background work.
 */
function postgresDatabase() {
  const base = process.env.GPUNEX_TEST_DATABASE_URL;
  if (!base) throw new Error('database postgres: GPUNEX_TEST_DATABASE_URL is not set (make test sets it)');
  const name = `e2e_${randomBytes(6).toString('hex')}`;
  psql(base, `CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => psql(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * startServer runs the binary with --addr 127.0.0.1:0 and resolves with the
 * URL it prints once ready. The returned output() is the server's stdout and
 * stderr so far, for failure messages. extraArgs and env are added to the
 * command line and the environment; database is 'sqlite' or 'postgres'.
 */
export async function startServer({ timeoutMs = patience(), extraArgs = [], env = {}, database = 'sqlite' } = {}) {
  const bin = serverBinary();
  if (!existsSync(bin)) {
    throw new Error(`server binary ${bin} not found: run make build at the repository root, or set GPUNEX_BIN`);
  }
  if (database !== 'sqlite' && database !== 'postgres') throw new Error(`database ${database}: sqlite or postgres`);
  const pg = database === 'postgres' ? postgresDatabase() : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'gpunex-e2e-'));
  const dbArgs = pg ? ['--database-url', pg.url] : [];
  const child = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--data-dir', dataDir, '--demo', ...dbArgs, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
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
    pg?.drop();
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
