#!/usr/bin/env python3
"""gpu-live-check.py: on a host with an NVIDIA GPU, the platform end to end on
real hardware, as a provider and a customer see it.

It starts `gpunex serve --demo --demo-agents=false` on loopback (the demo's
accounts, none of its simulated agents), signs in as the demo provider,
makes an agent token and starts `gpunex-agent` WITHOUT --simulate, so the
agent reads the GPUs with NVML and benchmarks them with its CUDA suite. It
then prints what the dashboard shows, read through the public GraphQL API:
the machine (driver, CUDA), each GPU (NVML name, catalogue model, memory,
PCI, power limit, live telemetry), the registration benchmark (score,
listing, every figure against its reference and threshold, NVML evidence:
clocks, power, throttle reasons, PCIe link) and, once the GPU is listed, a
customer's rental of it: the job's states and log tail, as far as the host's
container runtime allows.

Usage: python3 scripts/gpu-live-check.py [--bin DIR] [--out DIR]
Exit 0 when the GPU registered, benchmarked COMPLETED and was scored; 1
otherwise. Not part of make test: no CI machine has a GPU.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=os.path.join(here, "bin"))
ap.add_argument("--out", default=os.environ.get("OUT") or tempfile.mkdtemp())
ap.add_argument("--bench-budget", default="40s")
ap.add_argument("--simulate", default="", help="a dry run of this script without a GPU: the agent's --simulate spec")
ap.add_argument("--agent-arg", action="append", default=[], help="one more argument for the agent (repeatable)")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)
work = tempfile.mkdtemp()
procs = []


def say(*a):
    print(*a, flush=True)


def start(name, argv, env=None):
    log = open(os.path.join(args.out, name + ".log"), "w")
    p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    procs.append(p)
    return p


def stop_all():
    # The agent first, so that its going-offline heartbeat reaches the server.
    for p in reversed(procs):
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                pass
    for p in procs:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


server = start("server", [os.path.join(args.bin, "gpunex"), "serve", "--addr", "127.0.0.1:0", "--data-dir",
                          os.path.join(work, "server"), "--demo", "--demo-agents=false", "--heartbeat-interval", "2s"])
url = None
for _ in range(600):
    m = re.search(r"http://127\.0\.0\.1:\d+", open(os.path.join(args.out, "server.log")).read())
    if m:
        url = m.group(0)
        break
    if server.poll() is not None:
        break
    time.sleep(0.1)
if not url:
    say("the server did not start:\n" + open(os.path.join(args.out, "server.log")).read()[-3000:])
    stop_all()
    sys.exit(1)
say(f"server: {url}")


def gql(query, variables=None, token=None):
    req = urllib.request.Request(url + "/graphql", data=json.dumps({"query": query, "variables": variables or {}}).encode(),
                                 headers={"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        body = json.load(r)
    if body.get("errors"):
        raise RuntimeError(json.dumps(body["errors"]))
    return body["data"]


def log_in(email):
    return gql('mutation($e: String!) { logIn(input: {email: $e, password: "gpunex-demo"}) { token } }', {"e": email})["logIn"]["token"]


ok = True
try:
    provider = log_in("provider@gpunex.demo")
    agent_token = gql('mutation { createAgentToken(name: "h200") { token } }', token=provider)["createAgentToken"]["token"]
    t0 = time.time()
    agent = start("agent", [os.path.join(args.bin, "gpunex-agent"), "--server", url, "--data-dir", os.path.join(work, "agent"),
                            "--hostname", "real-gpu-host", "--bench-gpu-budget", args.bench_budget, "--bench-storage-bytes", "256MiB"]
                  + (["--simulate", args.simulate] if args.simulate else []) + args.agent_arg,
                  env={"GPUNEX_TOKEN": agent_token})

    machine_q = """{ myProvider { machines { hostname status simulated agentVersion driverVersion cudaVersion
      gpus { uuid index name model { key name } vramBytes pciBusId powerLimitW simulated
        telemetry { at utilizationPct memoryUsedBytes temperatureC powerDrawW smClockMHz throttleReasons eccCorrected eccUncorrected } } } } }"""
    machine = None
    for _ in range(120):
        ms = [m for m in gql(machine_q, token=provider)["myProvider"]["machines"] if m["hostname"] == "real-gpu-host"]
        if ms and ms[0]["status"] == "ONLINE" and all(g["telemetry"] for g in ms[0]["gpus"]):
            machine = ms[0]
            break
        if agent.poll() is not None:
            break
        time.sleep(0.5)
    if not machine:
        raise RuntimeError("the machine did not come online with telemetry; agent log:\n" +
                           open(os.path.join(args.out, "agent.log")).read()[-4000:])
    say(f"online after {time.time() - t0:.1f} s")
    say("machine, as myProvider.machines shows it:")
    say(json.dumps(machine, indent=1))

    bench_q = """{ myProvider { benchmarks { hostname pendingRun { runId state }
      latestRun { runId reason state startedAt finishedAt simulated
        network { outcome error figures { metric measured passed } }
        storage { outcome error figures { metric measured passed } } }
      gpus { gpuUuid listing score shortfalls { metric } guidance { code message }
        history { outcome error at }
        latest { runId outcome error score passed simulated consistency
          figures { metric supported measured min max reference expected minimum ratio passed }
          evidence { samples maxTemperatureC meanSmClockMHz maxSmClockMHz meanPowerDrawW powerLimitW throttleReasons throttledShare
            pcieGeneration pcieWidth pcieMaxGeneration pcieMaxWidth eccCorrectedDelta eccUncorrectedDelta } } } } } }"""
    mb = None
    for _ in range(400):
        bs = [b for b in gql(bench_q, token=provider)["myProvider"]["benchmarks"] if b["hostname"] == "real-gpu-host"]
        # A GPU's result is in its history; latest is the latest scored one
        # (a POSTPONED result is history only).
        if bs and bs[0]["gpus"] and all(g["history"] for g in bs[0]["gpus"]) and bs[0]["latestRun"]:
            mb = bs[0]
            break
        if agent.poll() is not None:
            break
        time.sleep(0.5)
    if not mb:
        raise RuntimeError("no benchmark result arrived; agent log:\n" + open(os.path.join(args.out, "agent.log")).read()[-4000:])
    say(f"registration benchmark in after {time.time() - t0:.1f} s")
    json.dump(mb, open(os.path.join(args.out, "benchmarks.json"), "w"), indent=1)
    run = mb["latestRun"]
    say(f"run {run['runId']} {run['reason']} {run['state']} {run['startedAt']} .. {run['finishedAt']} simulated={run['simulated']}")
    for sec in ("network", "storage"):
        s = run[sec]
        if s:
            say(f"  {sec}: {s['outcome']} {s['error'] or ''} " + ", ".join(f"{f['metric']}={f['measured']}" for f in s["figures"]))
    for g in mb["gpus"]:
        lt = g["latest"]
        h = g["history"][0]
        if not lt or h["at"] > lt["at"]:
            say(f"GPU {g['gpuUuid']}: listing {g['listing']}, latest result {h['outcome']}: {h['error']}")
            ok = False
            continue
        say(f"GPU {g['gpuUuid']}: listing {g['listing']}, score {g['score']}, outcome {lt['outcome']} {lt['error'] or ''}, "
            f"passed {lt['passed']}, simulated {lt['simulated']}")
        say(f"  {'metric':22} {'median':>10} {'min':>10} {'max':>10} {'reference':>10} {'expected':>10} {'minimum':>10} {'ratio':>7} passed")
        for f in lt["figures"]:
            fmt = lambda v: "-" if v is None else f"{v:.1f}"
            say(f"  {f['metric']:22} {fmt(f['measured']):>10} {fmt(f['min']):>10} {fmt(f['max']):>10} {fmt(f['reference']):>10} "
                f"{fmt(f['expected']):>10} {fmt(f['minimum']):>10} {('-' if f['ratio'] is None else format(f['ratio'], '.3f')):>7} {f['passed']}")
        say("  evidence: " + json.dumps(lt["evidence"]))
        if g["guidance"]:
            say("  guidance: " + json.dumps(g["guidance"]))
        if lt["outcome"] != "COMPLETED" or lt["score"] is None:
            ok = False

    # A customer's rental of the GPU, once it is listed.
    listed = [g for g in mb["gpus"] if g["listing"] == "LISTED"]
    model = machine["gpus"][0]["model"]
    if not listed or not model:
        say("rental: skipped, the GPU is not listed (see the figures above)")
    else:
        r = gql('mutation($m: String!) { setGpuPrice(input: {model: $m, pricePerHour: "2.000000"}) { userErrors { field code message } } }',
                {"m": model["key"]}, token=provider)
        say("setGpuPrice: " + json.dumps(r["setGpuPrice"]))
        customer = log_in("customer@gpunex.demo")
        listing = None
        for _ in range(60):
            edges = gql('query($m: String!) { marketplace(filter: {model: $m}, first: 20) { edges { node { id gpuCount simulated performanceScore pricePerHour } } } }',
                        {"m": model["key"]}, token=customer)["marketplace"]["edges"]
            real = [e["node"] for e in edges if args.simulate or not e["node"]["simulated"]]
            if real:
                listing = real[0]
                break
            time.sleep(0.5)
        say("listing: " + json.dumps(listing))
        if listing:
            image = os.environ.get("GPUNEX_CHECK_IMAGE", "busybox")
            r = gql("""mutation($l: ID!, $i: String!) { startRental(input: {listingId: $l, gpuCount: 1, image: $i,
                 command: ["sh", "-c", "nvidia-smi -L || echo no nvidia-smi; echo visible=$NVIDIA_VISIBLE_DEVICES; sleep 30"]}) {
                 rental { id state } userErrors { field code message } } }""", {"l": listing["id"], "i": image}, token=customer)
            say("startRental: " + json.dumps(r["startRental"]))
            rental = r["startRental"]["rental"]
            if rental:
                last = None
                for _ in range(60):
                    cur = gql('query($id: ID!) { rental(id: $id) { state cause message startedAt endedAt exitCode logTail } }',
                              {"id": rental["id"]}, token=customer)["rental"]
                    if cur != last:
                        say("rental: " + json.dumps(cur))
                        last = cur
                    if cur["state"] not in ("PENDING", "STARTING"):
                        if cur["state"] == "RUNNING" and not cur["logTail"]:
                            time.sleep(0.5)
                            continue
                        break
                    time.sleep(0.5)
                s = gql('mutation($id: ID!) { stopRental(id: $id) { rental { state endedAt } userErrors { field code message } } }',
                        {"id": rental["id"]}, token=customer)
                say("stopRental: " + json.dumps(s["stopRental"]))
except Exception as e:  # noqa: BLE001 - a device run prints whatever went wrong and goes on to clean up
    ok = False
    say(f"FAILED: {e}")
finally:
    stop_all()
    say("agent log (tail):")
    say(open(os.path.join(args.out, "agent.log")).read()[-2500:])
    shutil.rmtree(work, ignore_errors=True)
sys.exit(0 if ok else 1)
