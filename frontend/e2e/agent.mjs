// agent.mjs starts a GPU agent for the end-to-end tests: the real
// gpunex-agent binary (GPUNEX_AGENT_BIN, default ../bin/gpunex-agent) with
// simulated GPUs, or, with GPUNEX_E2E_AGENT=scripted, a stand-in written
// here that speaks the same GraphQL API (registerMachine, then heartbeat
// mutations with variables, and a last goingOffline heartbeat on SIGTERM).
// The stand-in is for developing the SPA while the real agent is not built;
// the tests use the real binary unless told otherwise.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { frontendDir } from './server.mjs';

/** agentBinary is GPUNEX_AGENT_BIN, or ../bin/gpunex-agent from the frontend folder. */
export function agentBinary() {
  return resolve(frontendDir, process.env.GPUNEX_AGENT_BIN ?? '../bin/gpunex-agent');
}

/**
 * startAgent runs an agent for token against server with simulated GPUs
 * (`simulate` as the agent's --simulate flag, e.g. 2xH100) on hostname.
 * It returns { kind, stop(signal), exited, output() }: stop sends signal
 * (SIGTERM: a planned shutdown) and resolves once the agent has exited.
 * Given dataDir (see agentDataDir), the binary agent keeps its state there
 * and stop leaves it, so an agent started again on it is the same machine
 * (same machine id); otherwise each agent gets a fresh directory, removed
 * on stop. env adds to the binary agent's environment (its settings, e.g.
 * GPUNEX_SIMULATED_BENCH_DURATION).
 */
export function startAgent({ server, token, hostname, simulate, dataDir, env = {} }) {
  if (process.env.GPUNEX_E2E_AGENT === 'scripted') return startScriptedAgent({ server, token, hostname, simulate });
  return startBinaryAgent({ server, token, hostname, simulate, dataDir, env });
}

/** agentDataDir makes a data directory for agents started on it in turn; remove it with rmSync when done. */
export function agentDataDir() {
  return mkdtempSync(join(tmpdir(), 'gpunex-e2e-agent-'));
}

/**
 * createAgentToken creates an agent token through the GraphQL API with the
 * session of request (a Playwright APIRequestContext, e.g.
 * page.context().request) and returns it.
 */
export async function createAgentToken(request, server, name = 'e2e') {
  const res = await request.post(`${server}/graphql`, {
    headers: { 'content-type': 'application/json', 'X-GPUnex-CSRF': '1' },
    data: { query: 'mutation($name: String!) { createAgentToken(name: $name) { token userErrors { field code message } } }', variables: { name } },
  });
  const body = await res.json();
  const token = body.data?.createAgentToken?.token;
  if (res.status() !== 200 || !/^gpx_a_\S{20,}$/.test(token ?? '')) throw new Error(`createAgentToken: ${res.status()} ${JSON.stringify(body)}`);
  return token;
}

function startBinaryAgent({ server, token, hostname, simulate, dataDir: keptDir, env }) {
  const bin = agentBinary();
  if (!existsSync(bin)) {
    throw new Error(`agent binary ${bin} not found: go build -o bin/gpunex-agent ./cmd/gpunex-agent, or set GPUNEX_AGENT_BIN`);
  }
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'gpunex-e2e-agent-'));
  // The token in the environment, as the installer does: on the command
  // line every local user could read it.
  const args = ['--server', server, '--data-dir', dataDir, '--simulate', simulate, '--hostname', hostname];
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, GPUNEX_TOKEN: token } });
  let log = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk) => (log += chunk));
  child.stderr.on('data', (chunk) => (log += chunk));
  const exited = new Promise((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  const onProcessExit = () => child.kill('SIGKILL');
  process.once('exit', onProcessExit);

  async function stop(signal = 'SIGTERM') {
    process.removeListener('exit', onProcessExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
    return exited;
  }

  return { kind: 'binary', command: `GPUNEX_TOKEN=<token> ${bin} ${args.join(' ')}`, stop, exited, output: () => log };
}

const REGISTER = `mutation Register($i: RegisterMachineInput!) {
  registerMachine(input: $i) { machine { id } heartbeatIntervalSeconds userErrors { field code message } }
}`;
const HEARTBEAT = `mutation Heartbeat($i: HeartbeatInput!) {
  heartbeat(input: $i) { accepted status intervalSeconds userErrors { field code message } }
}`;

// SIMULATED_MODELS are the products the stand-in can pretend to have.
const SIMULATED_MODELS = {
  H100: { name: 'NVIDIA H100 80GB HBM3', vramBytes: 85_520_809_984, powerLimitW: 700, smClockMHz: 1980 },
  L4: { name: 'NVIDIA L4', vramBytes: 24_152_899_584, powerLimitW: 72, smClockMHz: 2040 },
};

/**
 * startScriptedAgent is the stand-in: it registers a machine with the GPUs
 * `simulate` names (2xH100,1xL4), heartbeats at the interval the server
 * returns with moving telemetry, and on stop('SIGTERM') sends a last
 * heartbeat with goingOffline, as the real agent does.
 */
function startScriptedAgent({ server, token, hostname, simulate }) {
  const machineId = `e2e-${randomBytes(8).toString('hex')}`;
  const gpus = [];
  for (const part of simulate.split(',')) {
    const [, count, model] = /^(\d+)x(\w+)$/.exec(part.trim()) ?? [];
    const spec = SIMULATED_MODELS[model];
    if (!spec) throw new Error(`scripted agent: unknown --simulate part ${part}`);
    for (let i = 0; i < Number(count); i++) gpus.push({ ...spec, uuid: `GPU-${randomBytes(16).toString('hex')}`, index: gpus.length });
  }
  let log = '';
  const say = (line) => (log += `${new Date().toISOString()} ${line}\n`);
  const history = gpus.map(() => []);
  let running = true;
  let timer;
  let resolveExit;
  const exited = new Promise((r) => (resolveExit = r));

  async function gql(query, variables) {
    const res = await fetch(`${server}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = await res.json();
    if (body.errors?.length) throw new Error(`${res.status} ${JSON.stringify(body.errors)}`);
    return body.data;
  }

  function telemetry(tick) {
    return gpus.map((g, i) => {
      const util = Math.round(50 + 45 * Math.sin(tick / 3 + i));
      history[i].push(util);
      if (history[i].length > 30) history[i].shift();
      return {
        uuid: g.uuid,
        utilizationPct: util,
        memoryUsedBytes: Math.round((g.vramBytes * util) / 150),
        temperatureC: 40 + util / 3,
        powerDrawW: Math.round(60 + (g.powerLimitW - 60) * (util / 100)),
        smClockMHz: util > 5 ? g.smClockMHz : 345,
        throttleReasons: util > 90 ? ['SW_POWER_CAP'] : util < 10 ? ['GPU_IDLE'] : [],
        eccCorrected: 0,
        eccUncorrected: 0,
        recentUtilizationPct: [...history[i]],
      };
    });
  }

  async function run() {
    const reg = await gql(REGISTER, {
      i: {
        machineId,
        hostname,
        agentVersion: '0.0.0-e2e-scripted',
        // What the binary agent reads of its host (agent/host), claimed.
        host: { cpuModel: 'AMD EPYC 7763 64-Core Processor', cpuCores: 32, ramBytes: 256 * 1024 ** 3, diskBytes: 2e12, diskFreeBytes: 1.5e12 },
        gpus: gpus.map((g) => ({
          uuid: g.uuid,
          index: g.index,
          name: g.name,
          vramBytes: g.vramBytes,
          pciBusId: `00000000:${(0x18 + g.index * 0x10).toString(16).toUpperCase()}:00.0`,
          driverVersion: '550.54.15',
          cudaDriverVersion: '12.4',
          powerLimitW: g.powerLimitW,
          simulated: true,
        })),
      },
    });
    const r = reg.registerMachine;
    if (r.userErrors.length) throw new Error(`registerMachine: ${JSON.stringify(r.userErrors)}`);
    say(`registered machine ${r.machine.id} (${machineId}), interval ${r.heartbeatIntervalSeconds}s`);
    let interval = r.heartbeatIntervalSeconds * 1000;
    let tick = 0;
    const beat = async () => {
      if (!running) return;
      try {
        const hb = (await gql(HEARTBEAT, { i: { machineId, gpus: telemetry(tick++) } })).heartbeat;
        if (hb.userErrors.length) say(`heartbeat userErrors ${JSON.stringify(hb.userErrors)}`);
        else if (tick === 1) say(`first heartbeat: ${hb.status}`);
        interval = hb.intervalSeconds * 1000 || interval;
      } catch (err) {
        say(`heartbeat failed: ${err.message}`);
      }
      if (running) timer = setTimeout(beat, interval);
    };
    await beat();
  }

  const started = run().catch((err) => {
    say(`stopped: ${err.message}`);
    running = false;
    resolveExit({ code: 1, signal: null });
  });

  async function stop(signal = 'SIGTERM') {
    if (!running) return exited;
    running = false;
    clearTimeout(timer);
    await started;
    if (signal === 'SIGTERM') {
      try {
        const hb = (await gql(HEARTBEAT, { i: { machineId, gpus: [], goingOffline: true } })).heartbeat;
        say(`going offline (planned): ${hb.status}`);
      } catch (err) {
        say(`going-offline heartbeat failed: ${err.message}`);
      }
    }
    resolveExit({ code: 0, signal: null });
    return exited;
  }

  return { kind: 'scripted', command: `scripted agent ${hostname} --simulate ${simulate}`, stop, exited, output: () => log };
}
