// solana.mjs starts the Solana node double (bin/solana-double, built from
// internal/e2e/cmd/solana-double by make e2e) for the deposit tests: the
// JSON-RPC node gpunex follows deposits on, the platform's key file, and a
// funded customer wallet the test pays Solana Pay links with, as a wallet
// app does.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { frontendDir } from './server.mjs';
import { patience } from './patience.mjs';

/** doubleBinary is GPUNEX_SOLANA_DOUBLE_BIN, or ../bin/solana-double from the frontend folder. */
export function doubleBinary() {
  return resolve(frontendDir, process.env.GPUNEX_SOLANA_DOUBLE_BIN ?? '../bin/solana-double');
}

/**
 * startSolanaDouble runs the double and resolves once it printed its line:
 * serverArgs are the flags gpunex serve takes to use it; pay(link, {hold})
 * pays a Solana Pay link from the customer's wallet and resolves with the
 * transaction's signature (held at confirmed with hold); finalize(signature)
 * finalizes a held one; stop() is safe to call twice.
 */
export async function startSolanaDouble({ timeoutMs = patience() } = {}) {
  const bin = doubleBinary();
  if (!existsSync(bin)) {
    throw new Error(`${bin} not found: go build -o bin/solana-double ./internal/e2e/cmd/solana-double (make e2e does), or set GPUNEX_SOLANA_DOUBLE_BIN`);
  }
  const child = spawn(bin, [], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  const onProcessExit = () => child.kill('SIGKILL');
  process.once('exit', onProcessExit);
  let stopped = false;
  async function stop() {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onProcessExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  }

  let started;
  try {
    started = await new Promise((resolveLine, reject) => {
      const timer = setTimeout(() => reject(new Error(`solana-double printed nothing within ${timeoutMs} ms`)), timeoutMs);
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const end = out.indexOf('\n');
        if (end >= 0) {
          clearTimeout(timer);
          resolveLine(JSON.parse(out.slice(0, end)));
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`solana-double exited before it was ready (code ${code}, signal ${signal})`));
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  } catch (err) {
    await stop();
    err.message += `\n--- solana-double output ---\n${log}`;
    throw err;
  }

  async function control(path, body) {
    const res = await fetch(`${started.controlUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const reply = await res.json();
    if (!res.ok) throw new Error(`solana-double ${path}: ${res.status} ${reply.error}`);
    return reply;
  }

  return {
    ...started,
    serverArgs: ['--solana-rpc-url', started.rpcUrl, '--solana-key-file', started.keyFile, '--solana-usdc-mint', started.mint],
    pay: async (link, { hold = false } = {}) => (await control('/pay', { link, hold })).signature,
    finalize: (signature) => control('/finalize', { signature }),
    stop,
    output: () => log,
  };
}
