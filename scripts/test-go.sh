#!/usr/bin/env bash
# test-go.sh: make test-go. Every Go package's tests, and every benchmark once
# at its smallest size (GPUNEX_BENCH=smallest) on the same test binaries.
#
# Given -bench, one go test runs its packages' test binaries one after the
# other (cmd/go serialises benchmarks): one go test over the whole module
# ran the 50 packages in turn (11 min 53 s on this 2-core machine, the sum
# of the packages' own times), so a package waiting on its servers and
# agents held up every other. So the packages without a benchmark run in
# one go test, in parallel by package as usual, and each package with one
# runs in a go test of its own beside it, longest first, at most BENCH_JOBS
# (2) at a time: more at once ran PostgreSQL out of connections and the
# machine to a load of 20 for no shorter run. A package's output is
# printed whole when it ends, so lines of two packages never mix; the exit
# status is 1 when any package failed.
#
# Usage: scripts/test-go.sh [go test flags...]   (e.g. -timeout 45m)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

GO=${GO:-go}
jobs=${BENCH_JOBS:-2}
module=$($GO list -m) || exit 1

# Packages with a benchmark, longest-running first (measured on the CI
# machine), then any other in name order.
mapfile -t found < <(grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.git '^func Benchmark' . |
  xargs -r -n1 dirname | sed 's|^\./||' | sort -u)
bench=()
for p in internal/e2e internal/platform internal/billing internal/auth internal/market internal/reliability; do
  for f in "${found[@]}"; do [ "$f" = "$p" ] && bench+=("$p"); done
done
for f in "${found[@]}"; do
  case " ${bench[*]} " in *" $f "*) ;; *) bench+=("$f") ;; esac
done

others=()
while IFS= read -r p; do
  case " ${bench[*]} " in *" ${p#"$module"/} "*) ;; *) others+=("$p") ;; esac
done < <($GO list ./...)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The packages without a benchmark, in one go test in parallel by package.
{ $GO test -count=1 "$@" "${others[@]}" || touch "$out/others.failed"; } &

# Each package with a benchmark: its own go test, its output printed whole
# at its end, a file saying it failed; at most $jobs at a time beside the
# go test above.
for pkg in "${bench[@]}"; do
  while [ "$(jobs -rp | wc -l)" -gt "$jobs" ]; do wait -n; done
  {
    log="$out/${pkg//\//_}.log"
    GPUNEX_BENCH=smallest $GO test -count=1 "$@" -bench . -benchtime 1x "./$pkg/" >"$log" 2>&1 ||
      touch "$log.failed"
    cat "$log"
  } &
done
wait

if compgen -G "$out/*.failed" >/dev/null; then
  exit 1
fi
