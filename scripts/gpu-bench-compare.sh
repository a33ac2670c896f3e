#!/usr/bin/env bash
# gpu-bench-compare.sh: on a host with an NVIDIA GPU, its driver and
# PyTorch, measure GPU 0 with the agent's own suite (gpunex-agent
# --bench-once: the embedded PTX through libcuda, no CUDA toolkit) and with
# PyTorch on the same GPU (a large bf16 matmul and a device-to-device copy,
# the accelerator's own reference), and print the ratios against the
# targets of the benchmark issue:
#   memory copy bandwidth >= 0.9 x PyTorch's copy
#   FP32 within 15 % of the datasheet peak (internal/catalog/gpus.json)
#   tensor-core throughput >= 0.5 x PyTorch's matmul (FP16 against an fp16
#   matmul, BF16 against a bf16 one)
# Exit status 0 when every target holds, 1 when one does not, 2 when the
# host cannot run the comparison. Run `make build` first (or set
# GPUNEX_AGENT to the agent binary). Not part of make test: no CI machine
# has a GPU.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
agent=${GPUNEX_AGENT:-$here/bin/gpunex-agent}
catalog=$here/internal/catalog/gpus.json

if [[ ! -x $agent ]]; then
	echo "gpu-bench-compare: no agent binary at $agent; run make build" >&2
	exit 2
fi
if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
	echo "gpu-bench-compare: PyTorch with CUDA is not available here" >&2
	exit 2
fi

work=$(mktemp -d)
# GPU_BENCH_KEEP: a folder that keeps the agent's JSON result and log.
trap 'if [[ -n ${GPU_BENCH_KEEP:-} ]]; then mkdir -p "$GPU_BENCH_KEEP"; cp "$work"/agent.* "$GPU_BENCH_KEEP"/ 2>/dev/null; fi; rm -rf "$work"' EXIT
echo "gpu-bench-compare: running gpunex-agent --bench-once (up to a minute per GPU)..." >&2
SECONDS=0
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} "$agent" --bench-once --data-dir "$work/data" \
	--bench-storage-bytes 256MiB --log-format text >"$work/agent.json" 2>"$work/agent.log" || {
	echo "gpu-bench-compare: the agent failed:" >&2
	cat "$work/agent.log" >&2
	exit 2
}
took=$SECONDS

CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} python3 - "$work/agent.json" "$catalog" "$took" <<'PY'
import json, subprocess, sys
import torch

agent = json.load(open(sys.argv[1]))
catalog = json.load(open(sys.argv[2]))
took = float(sys.argv[3])
gpu = agent["gpus"][0]
if gpu["outcome"] != "COMPLETED":
    print(f"the agent's GPU run {gpu['outcome']}: {gpu.get('error')}")
    sys.exit(1)
figures = {m["metric"]: m.get("median") for m in gpu["measurements"]}
print(f"agent --bench-once took {took:.1f} s (all GPUs and the storage)")
print(f"{'metric':22} {'median':>10} {'min':>10} {'max':>10} reps")
for m in gpu["measurements"]:
    f = lambda v: "-" if v is None else f"{v:.1f}"
    print(f"{m['metric']:22} {f(m.get('median')):>10} {f(m.get('min')):>10} {f(m.get('max')):>10} {m.get('repetitions', 0)}")
if gpu.get("evidence"):
    print("evidence: " + json.dumps(gpu["evidence"]))

name = torch.cuda.get_device_name(0)
driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", "0"],
                        capture_output=True, text=True).stdout.strip()
smi = subprocess.run(["nvidia-smi"], capture_output=True, text=True).stdout
cuda = next((l.split("CUDA Version:")[1].split()[0] for l in smi.splitlines() if "CUDA Version:" in l), "?")
model = next((m for m in catalog if any(n.lower() == name.lower() for n in m["nvmlNames"])), None)

def timed(fn, reps=20):
    fn(); torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record(); fn(); end.record(); torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1000)
    times.sort()
    return times[len(times) // 2]

n = 8192
matmul = {}
for dtype in (torch.bfloat16, torch.float16):
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    matmul[dtype] = 2 * n**3 / timed(lambda: a @ b) / 1e12
    del a, b
matmul_tflops = matmul[torch.bfloat16]
words = (2 << 30) // 4
src = torch.ones(words, device="cuda", dtype=torch.float32)
dst = torch.empty_like(src)
copy_gbs = 2 * words * 4 / timed(lambda: dst.copy_(src)) / 1e9
del src, dst

print(f"GPU: {name}   driver: {driver}   CUDA (driver): {cuda}   PyTorch {torch.__version__} (CUDA {torch.version.cuda})   catalog model: {model['key'] if model else 'none'}")
print(f"agent:   FP32 {figures.get('FP32_TFLOPS')} TFLOPS, tensor BF16 {figures.get('TENSOR_BF16_TFLOPS')} TFLOPS, "
      f"tensor FP16 {figures.get('TENSOR_FP16_TFLOPS')} TFLOPS, copy {figures.get('MEMORY_COPY_GBS')} GB/s, "
      f"read {figures.get('MEMORY_READ_GBS')} GB/s, write {figures.get('MEMORY_WRITE_GBS')} GB/s")
print(f"PyTorch: bf16 matmul {matmul_tflops:.1f} TFLOPS, fp16 matmul {matmul[torch.float16]:.1f} TFLOPS, device copy {copy_gbs:.1f} GB/s")

ok = True
def check(label, ratio, target, cmp):
    global ok
    good = ratio is not None and cmp(ratio, target)
    ok = ok and good
    shown = "n/a" if ratio is None else f"{ratio:.3f}"
    print(f"{'PASS' if good else 'FAIL'}  {label}: {shown} (target {target})")

copy = figures.get("MEMORY_COPY_GBS")
check("memory copy / PyTorch copy", copy / copy_gbs if copy else None, ">= 0.9", lambda r, _: r >= 0.9)
fp32 = figures.get("FP32_TFLOPS")
check("FP32 / datasheet peak", fp32 / model["fp32Tflops"] if fp32 and model else None, "within 15 %", lambda r, _: abs(1 - r) <= 0.15)
tensor = figures.get("TENSOR_BF16_TFLOPS")
check("tensor BF16 / PyTorch bf16 matmul", tensor / matmul_tflops if tensor else None, ">= 0.5", lambda r, _: r >= 0.5)
tensor16 = figures.get("TENSOR_FP16_TFLOPS")
check("tensor FP16 / PyTorch fp16 matmul", tensor16 / matmul[torch.float16] if tensor16 else None, ">= 0.5", lambda r, _: r >= 0.5)
sys.exit(0 if ok else 1)
PY
