#!/usr/bin/env bash
# Checks scripts/test-env.sh (the set-up `make test` does first) against a
# PATH of stub commands that record their calls (apt-get, dpkg, chromium,
# xmllint, the linter, pg_isready, pg_lsclusters, pg_ctlcluster, psql, redis-cli,
# redis-server, docker, dockerd, id). Nothing real is installed or started. Run by `make test`
# (target test-setup); also checks that .ci/run leaves all set-up to it.
# shellcheck disable=SC2016 # the stubs' bodies expand when the stubs run
set -euo pipefail
cd "$(dirname "$0")/.."
script=$PWD/scripts/test-env.sh
bash_bin=$(command -v bash)
chmod_bin=$(command -v chmod)
cp_bin=$(command -v cp)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checks=0

fail() {
  printf 'FAIL [%s]: %s\n' "$case_name" "$*" >&2
  failures=$((failures + 1))
}

# expect_calls WANT: the recorded calls (one "command args" a line) are WANT.
expect_calls() {
  checks=$((checks + 1))
  local got
  got=$(cat "$state/calls" 2>/dev/null || true)
  if [ "$got" != "$1" ]; then
    fail "calls differ$(printf '\n--- want\n%s\n--- got\n%s' "$1" "$got")"
  fi
}

# expect_env WANT: the environment file the script wrote is WANT.
expect_env() {
  checks=$((checks + 1))
  local got
  got=$(cat "$world/test.env" 2>/dev/null || echo '(no env file)')
  if [ "$got" != "$1" ]; then
    fail "env file differs$(printf '\n--- want\n%s\n--- got\n%s' "$1" "$got")"
  fi
}

# expect_output TEXT: the script printed TEXT.
expect_output() {
  checks=$((checks + 1))
  grep -qF -- "$1" "$world/out" || fail "output lacks '$1'$(printf '\n--- output\n%s' "$(cat "$world/out")")"
}

stub() { # stub NAME BODY: an executable $world/bin/NAME recording its call, then running BODY.
  stub_in bin "$@"
}
stub_in() { # stub_in DIR NAME BODY: the same in $world/DIR ("lib": installed by apt-get).
  cat >"$world/$1/$2" <<EOF
#!$bash_bin
echo "$2 \$*" >>"\$STUB_STATE/calls"
$3
EOF
  chmod +x "$world/$1/$2"
}
quiet_stub() { # quiet_stub NAME BODY: a stub that does not record (probes asked many times)
  printf '#!%s\n%s\n' "$bash_bin" "$2" >"$world/bin/$1"
  chmod +x "$world/bin/$1"
}

# new_world NAME: a fresh bin directory holding the basic tools the script
# uses and the stubs: the six packages absent (docker.io's dockerd and
# docker wait in lib/ for apt-get to install them), PostgreSQL and Redis
# installed (as on the machines CI runs on) but down.
new_world() {
  case_name=$1
  world=$work/$1
  state=$world/state
  mkdir -p "$world/bin" "$world/lib" "$state/pkg" "$world/tmp"
  for c in env cat mkdir seq sleep awk cksum dirname basename tail flock; do
    ln -s "$(command -v "$c")" "$world/bin/$c"
  done
  quiet_stub id 'echo 0'   # as root, so as_root runs the command itself
  stub apt-get '
if [ "$3" = install ]; then
  shift 3
  for p in "$@"; do
    case $p in -*) continue ;; esac
    : >"$STUB_STATE/pkg/$p"
    case $p in chromium|shellcheck) printf "#!/bin/sh\necho %s 1.0\n" "$p" >"'"$world"'/bin/$p"; "'"$chmod_bin"'" +x "'"$world"'/bin/$p" ;; esac
    case $p in libxml2-utils) printf "#!/bin/sh\n" >"'"$world"'/bin/xmllint"; "'"$chmod_bin"'" +x "'"$world"'/bin/xmllint" ;; esac
    case $p in docker.io) for c in docker dockerd; do "'"$cp_bin"'" "'"$world"'/lib/$c" "'"$world"'/bin/$c"; done ;; esac
  done
fi'
  quiet_stub dpkg '[ "$1" = -s ] && [ -e "$STUB_STATE/pkg/$2" ]'
  quiet_stub pg_isready '[ -e "$STUB_STATE/pg-up" ]'
  quiet_stub pg_lsclusters 'echo "15  main    5432 down   postgres /var/lib/postgresql/15/main /var/log/postgresql/postgresql-15-main.log"'
  stub pg_ctlcluster ': >"$STUB_STATE/pg-up"'
  # psql answers SHOW max_connections from the state (400 unless a case
  # says otherwise) without recording it: the probe is asked every time.
  { printf '#!%s\n' "$bash_bin"; cat <<'EOF'
case "$*" in
  *"SHOW max_connections"*) cat "$STUB_STATE/max-connections" 2>/dev/null || echo 400; exit 0 ;;
esac
echo "psql $*" >>"$STUB_STATE/calls"
EOF
  } >"$world/bin/psql"
  chmod +x "$world/bin/psql"
  quiet_stub redis-cli '[ -e "$STUB_STATE/redis-up" ] && echo PONG'
  stub redis-server ': >"$STUB_STATE/redis-up"'
  # The engine answers once dockerd has run (the probe is asked many
  # times, so it does not record).
  printf '#!%s\n[ -e "$STUB_STATE/docker-up" ] && echo 20.10.24\n' "$bash_bin" >"$world/lib/docker"
  chmod +x "$world/lib/docker"
  stub_in lib dockerd ': >"$STUB_STATE/docker-up"'
}

present() { # present: chromium, fonts-noto-core, shellcheck, libxml2-utils, docker.io and busybox-static installed
  : >"$state/pkg/fonts-noto-core"
  : >"$state/pkg/busybox-static"
  cp "$world/lib/docker" "$world/lib/dockerd" "$world/bin/"
  printf '#!/bin/sh\necho Chromium 1.0\n' >"$world/bin/chromium"
  printf '#!/bin/sh\necho shellcheck\n' >"$world/bin/shellcheck"
  printf '#!/bin/sh\n' >"$world/bin/xmllint"
  chmod +x "$world/bin/chromium" "$world/bin/shellcheck" "$world/bin/xmllint"
}
running() { : >"$state/pg-up"; : >"$state/redis-up"; : >"$state/docker-up"; }

run_script() { # run_script [ENV=VALUE...] [--] [SCRIPT ARGS...]: the set-up in the stub world, with no environment of ours
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  if ! env -i PATH="$world/bin" HOME="$world" TMPDIR="$world/tmp" STUB_STATE="$state" \
      GPUNEX_REDIS_DIR="$world/redis" GPUNEX_DOCKERD_LOG="$world/dockerd.log" "${envs[@]}" \
      "$bash_bin" "$script" "$@" "$world/test.env" >"$world/out" 2>&1; then
    fail "the script failed$(printf '\n%s' "$(cat "$world/out")")"
  fi
}

db_name() { # the database the script names for $world/test.env
  printf 'gpunex_test_%s' "$(printf '%s' "$world/test.env" | cksum | awk '{ print $1 }')"
}
services_env() {
  printf 'export GPUNEX_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/%s\\?sslmode=disable\n' "$(db_name)"
  printf 'export GPUNEX_TEST_REDIS_URL=redis://127.0.0.1:6379/0'
}
default_env() {
  services_env
  printf '\nexport GPUNEX_TEST_DOCKER_HOST=unix:///var/run/docker.sock'
}
dockerd_call() { printf 'dockerd --host unix:///var/run/docker.sock'; }
psql_call() {
  printf 'psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -q -v ON_ERROR_STOP=1 -c DROP DATABASE IF EXISTS %s WITH (FORCE) -c CREATE DATABASE %s' "$(db_name)" "$(db_name)"
}

# 1. A fresh machine: the six packages absent, PostgreSQL, Redis and
# Docker down.
new_world fresh-machine
run_script
expect_calls "apt-get -o DPkg::Lock::Timeout=300 update -qq
apt-get -o DPkg::Lock::Timeout=300 install -y -qq chromium fonts-noto-core shellcheck libxml2-utils docker.io busybox-static
pg_ctlcluster --skip-systemctl-redirect 15 main start
$(psql_call)
redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save  --appendonly no --dir $world/redis --logfile $world/redis/test.log
$(dockerd_call)"
expect_env "$(default_env)"
expect_output "Debian packages: installing chromium fonts-noto-core shellcheck libxml2-utils docker.io busybox-static"
expect_output "PostgreSQL: starting cluster 15 main"
expect_output "Redis: starting redis-server"
expect_output "Docker: starting dockerd on /var/run/docker.sock (log in $world/dockerd.log)"
expect_output "Docker: engine 20.10.24 answering on /var/run/docker.sock"

# 2. Only the fonts missing: exactly that package is installed.
new_world fonts-missing
present
rm "$state/pkg/fonts-noto-core"
running
run_script
expect_calls "apt-get -o DPkg::Lock::Timeout=300 update -qq
apt-get -o DPkg::Lock::Timeout=300 install -y -qq fonts-noto-core
$(psql_call)"

# 3. Everything present and running: nothing installed or started; only the
# fresh database is made.
new_world all-present
present
running
run_script
expect_calls "$(psql_call)"
expect_env "$(default_env)"
expect_output "Debian packages: chromium, fonts-noto-core, shellcheck, libxml2-utils, docker.io, busybox-static present"
expect_output "PostgreSQL: running on 127.0.0.1:5432"
expect_output "Redis: running on 127.0.0.1:6379"
expect_output "Docker: engine 20.10.24 answering on /var/run/docker.sock"

# 4. The caller names its own servers: they are used as given and nothing
# local is probed, started or created, even with the local ones down.
new_world caller-urls
present
rm "$world/bin/docker" "$world/bin/dockerd" "$state/pkg/busybox-static"
run_script GPUNEX_TEST_DATABASE_URL='postgres://u@db.example:5432/x?sslmode=disable' \
  GPUNEX_TEST_REDIS_URL='redis://cache.example:6379/3' GPUNEX_TEST_DOCKER_HOST='tcp://docker.example:2375'
expect_calls ""
expect_env "export GPUNEX_TEST_DATABASE_URL=postgres://u@db.example:5432/x\\?sslmode=disable
export GPUNEX_TEST_REDIS_URL=redis://cache.example:6379/3
export GPUNEX_TEST_DOCKER_HOST=tcp://docker.example:2375"

# 5. make bench's --services-only: no browser, fonts, shellcheck or Docker.
new_world services-only
run_script -- --services-only
expect_calls "pg_ctlcluster --skip-systemctl-redirect 15 main start
$(psql_call)
redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save  --appendonly no --dir $world/redis --logfile $world/redis/test.log"
expect_env "$(services_env)"

# 6. A machine without the servers installed gets their packages.
new_world no-servers
present
rm "$world/bin/pg_ctlcluster" "$world/bin/redis-server"
running
run_script
expect_calls "apt-get -o DPkg::Lock::Timeout=300 update -qq
apt-get -o DPkg::Lock::Timeout=300 install -y -qq postgresql redis-server
$(psql_call)"

# 7. Docker installed but its engine down: only dockerd is started, once,
# and the script waits for it to answer.
new_world docker-down
present
: >"$state/pg-up"
: >"$state/redis-up"
run_script
expect_calls "$(psql_call)
$(dockerd_call)"
expect_env "$(default_env)"
expect_output "Docker: starting dockerd"

# 8. Only busybox-static missing: exactly that package is installed, and
# the running engine is left alone.
new_world busybox-missing
present
rm "$state/pkg/busybox-static"
running
run_script
expect_calls "apt-get -o DPkg::Lock::Timeout=300 update -qq
apt-get -o DPkg::Lock::Timeout=300 install -y -qq busybox-static
$(psql_call)"
expect_output "Docker: engine 20.10.24 answering"

# 9. Only xmllint missing: exactly libxml2-utils is installed, and it is
# there afterwards for the bank file tests.
new_world xmllint-missing
present
rm "$world/bin/xmllint"
running
run_script
expect_calls "apt-get -o DPkg::Lock::Timeout=300 update -qq
apt-get -o DPkg::Lock::Timeout=300 install -y -qq libxml2-utils
$(psql_call)"
expect_output "Debian packages: installing libxml2-utils"
checks=$((checks + 1))
[ -x "$world/bin/xmllint" ] || fail "xmllint not installed by apt-get install libxml2-utils"

# 10. PostgreSQL running with the default 100 connections: raised to 400 and
# the cluster restarted before the fresh database is made.
new_world few-connections
present
running
echo 100 >"$state/max-connections"
run_script
expect_calls "psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -q -v ON_ERROR_STOP=1 -c ALTER SYSTEM SET max_connections = 400
pg_ctlcluster --skip-systemctl-redirect 15 main restart
$(psql_call)"
expect_output "PostgreSQL: max_connections 100 -> 400 (ALTER SYSTEM), restarting cluster 15 main"

# 11. Two checkouts set up at once on a fresh machine (two make test side
# by side): the cluster is restarted once, the second finding the first's
# max_connections, not restarted again under the first's psql.
new_world two-at-once
present
running
echo 100 >"$state/max-connections"
stub pg_ctlcluster 'rm -f "$STUB_STATE/pg-up"; sleep 1; echo 400 >"$STUB_STATE/max-connections"; : >"$STUB_STATE/pg-up"'
{ printf '#!%s\n' "$bash_bin"; cat <<'EOF'
[ -e "$STUB_STATE/pg-up" ] || { echo "psql: the database system is shutting down" >&2; exit 2; }
case "$*" in
  *"SHOW max_connections"*) cat "$STUB_STATE/max-connections"; exit 0 ;;
esac
echo "psql $*" >>"$STUB_STATE/calls"
EOF
} >"$world/bin/psql"
for side in a b; do
  env -i PATH="$world/bin" HOME="$world" TMPDIR="$world/tmp" STUB_STATE="$state" \
    GPUNEX_REDIS_DIR="$world/redis" GPUNEX_DOCKERD_LOG="$world/dockerd.log" \
    "$bash_bin" "$script" "$world/$side.env" >"$world/$side.out" 2>&1 &
done
for side in a b; do
  wait -n || fail "a set-up failed$(printf '\n%s' "$(cat "$world/a.out" "$world/b.out")")"
done
checks=$((checks + 1))
restarts=$(grep -c "pg_ctlcluster .* restart" "$state/calls" || true)
[ "$restarts" = 1 ] || fail "the cluster was restarted $restarts times by two set-ups at once, not once$(printf '\n%s' "$(cat "$state/calls")")"

# 12. The cluster started (or restarted) under the lock keeps running
# after the set-up, as a daemon does: it must not hold the lock. PostgreSQL
# once inherited the lock's descriptor and held it for its whole life, and
# every later set-up on the machine waited on it for ever.
new_world daemon-keeps-no-lock
present
running
rm "$state/pg-up"
stub pg_ctlcluster '(exec sleep 600 </dev/null >/dev/null 2>&1) & echo $! >"$STUB_STATE/daemon.pid"; : >"$STUB_STATE/pg-up"'
run_script
checks=$((checks + 1))
[ -s "$state/daemon.pid" ] || fail "the stub cluster was not started$(printf '\n%s' "$(cat "$world/out")")"
if ! flock -n "$world/tmp/gpunex-test-env-postgres.lock" true; then
  kill "$(cat "$state/daemon.pid")" 2>/dev/null
  fail "the started cluster holds the set-up's lock: the next set-up would wait for ever"
fi
kill "$(cat "$state/daemon.pid")" 2>/dev/null || true

# 13. .ci/run leaves all set-up to make test.
case_name=ci-run
checks=$((checks + 1))
if grep -nE '^[^#]*\b(apt-get|dpkg|pg_ctlcluster|redis-server|psql|npm (ci|install))\b' .ci/run; then
  fail ".ci/run does set-up itself (above); that belongs in scripts/test-env.sh, run by make test"
fi
checks=$((checks + 1))
grep -qE '^[^#]*\bmake test\b' .ci/run || fail ".ci/run does not run make test"

if [ "$failures" -gt 0 ]; then
  printf 'scripts/test-env.test.sh: %d of %d checks failed\n' "$failures" "$checks" >&2
  exit 1
fi
printf 'scripts/test-env.test.sh: %d checks passed\n' "$checks"
