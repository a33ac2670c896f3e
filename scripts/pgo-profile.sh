#!/usr/bin/env bash
# pgo-profile.sh: make pgo. Writes cmd/gpunex/default.pgo, the CPU profile
# the Go toolchain optimises the server with (profile-guided optimisation:
# go build picks default.pgo from the main package's folder, so bin/gpunex,
# the container image and any plain `go build ./cmd/gpunex` use it).
#
# The profile is the platform's request mix, run through the whole stack
# on both backends (internal/platform's benchmarks, one second each):
# agents' heartbeats, dashboards' subscriptions and their events, small
# signed-in and anonymous queries, and sign-ins under a flood of bad ones.
# Not the handler-only micro-benchmark (BenchmarkSmallQueryHandler): it
# would weigh one request's path above the rest. PGO inlines the hot calls
# the profile names (gqlgen's generated resolvers pass closures to generic
# helpers; inlined, escape analysis keeps many of them on the stack) and
# devirtualises hot interface calls; the code stays the same code, so a
# stale profile costs speed, never correctness. Run it again after a large
# change of the request path (docs/development.md, "make bench").
#
# Needs the test services: make pgo runs scripts/test-env.sh first.
# Usage: scripts/pgo-profile.sh [output, default cmd/gpunex/default.pgo]
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1

GO=${GO:-go}
out=${1:-cmd/gpunex/default.pgo}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Profiled without PGO: the profile describes the code, not an earlier
# profile's inlining.
$GO test -c -pgo=off -o "$tmp/platform.test" ./internal/platform
(cd internal/platform && "$tmp/platform.test" -test.run '^$' \
  -test.bench 'Heartbeat|LiveDashboards|SmallQueries$|NormalClientUnderAttack' \
  -test.benchtime 1s -test.cpuprofile "$tmp/cpu.pprof" >"$tmp/bench.log" 2>&1) ||
  { cat "$tmp/bench.log" >&2; exit 1; }
# A profile pprof cannot read would fail every build of the server.
$GO tool pprof -proto "$tmp/cpu.pprof" >"$tmp/default.pgo" 2>/dev/null
$GO tool pprof -top -nodecount 1 "$tmp/default.pgo" >/dev/null 2>&1
mv "$tmp/default.pgo" "$out"
echo "pgo-profile: wrote $out ($(wc -c <"$out") bytes)"
