#!/usr/bin/env bash
# gpu-device-check.sh: the whole real-GPU check in one run, for a host with
# an NVIDIA GPU, its driver and PyTorch, where the binaries were built
# elsewhere (bin/gpunex and bin/gpunex-agent, carried over): what the host
# is, that the embedded PTX assembles for this GPU, the agent's benchmark
# against PyTorch (scripts/gpu-bench-compare.sh, as make gpu-bench runs
# it), and the platform end to end on the real GPU
# (scripts/gpu-live-check.py). Logs and JSON results go to $OUT (a
# temporary folder when unset). Exit status: 0 when every step passed.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
status=0
step() { printf '\n===== %s\n' "$*"; }

step "host"
nvidia-smi --query-gpu=name,uuid,driver_version,pci.bus_id,memory.total,power.limit,clocks.max.sm,clocks.max.mem,pcie.link.gen.max,pcie.link.width.max --format=csv
nvidia-smi | sed -n 3p
uname -srm
grep -m1 PRETTY_NAME /etc/os-release
for tool in docker dockerd nvidia-container-cli nvidia-ctk ptxas; do printf '%s: %s\n' "$tool" "$(command -v $tool || echo missing)"; done
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
ldd "$here/bin/gpunex-agent" | sed 's/^/  /'

step "ptxas: the embedded PTX for this GPU"
ptxas=$(command -v ptxas) || for p in /usr/local/cuda*/bin/ptxas; do ptxas=$p; done
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d .)
for ptx in core tensor; do
	"$ptxas" -arch="$arch" -v "$here/agent/bench/cuda/$ptx.ptx" -o "$out/$ptx.cubin" 2>&1 | grep -E 'entry|Used|error|warning' || status=1
done

step "gpu-bench: the agent's suite against PyTorch (make gpu-bench)"
nvidia-smi dmon -s pcu -d 1 >"$out/dmon.txt" 2>&1 &
dmon=$!
GPUNEX_AGENT="$here/bin/gpunex-agent" GPU_BENCH_KEEP="$out" timeout 300 bash "$here/scripts/gpu-bench-compare.sh" || status=1
kill "$dmon" 2>/dev/null
echo "nvidia-smi dmon during the run (power W, temperatures, SM/memory clocks MHz, utilisation), every 10th line:"
awk 'NR <= 2 || NR % 10 == 0' "$out/dmon.txt"

step "the platform on the real GPU (scripts/gpu-live-check.py)"
timeout 300 python3 "$here/scripts/gpu-live-check.py" --bin "$here/bin" --out "$out" || status=1

step "done: status $status"
exit $status
