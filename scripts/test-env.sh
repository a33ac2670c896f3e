#!/usr/bin/env bash
# The set-up `make test` (and `make bench`) does first, on a machine of ours
# (Debian 12), printing each thing it does:
#   - installs the Debian packages the tests need when they are absent
#     (apt-get update first): chromium (driven by playwright-core in the
#     browser tests), fonts-noto-core (Hindi and Arabic glyphs), shellcheck
#     (the agent installer's lint test), libxml2-utils (xmllint: the bank
#     transfer files checked against the ISO 20022 schema by
#     internal/billing/bank's tests), docker.io and busybox-static (the
#     agent's job containers on a real engine, their image imported from
#     busybox by the tests), and postgresql / redis-server when their
#     servers are needed and not installed;
#   - finds PostgreSQL on 127.0.0.1:5432, or starts its cluster, raises its
#     max_connections to 400 when lower (ALTER SYSTEM, then a restart of
#     the cluster), and creates a fresh test database;
#   - finds Redis on 127.0.0.1:6379, or starts it;
#   - finds the Docker engine on /var/run/docker.sock, or starts dockerd
#     (log in /var/log/gpunex-dockerd.log);
#   - writes GPUNEX_TEST_DATABASE_URL, GPUNEX_TEST_REDIS_URL and
#     GPUNEX_TEST_DOCKER_HOST to ENV_FILE (shell `export` lines) for the
#     tests.
# A GPUNEX_TEST_DATABASE_URL, GPUNEX_TEST_REDIS_URL or
# GPUNEX_TEST_DOCKER_HOST set by the caller is kept as it is, and that
# server is not started or touched.
#
#   scripts/test-env.sh [--services-only] ENV_FILE
#
# --services-only skips the browser, fonts, shellcheck, xmllint and Docker
# (make bench).
# Not root: apt-get and pg_ctlcluster run through sudo.
# scripts/test-env.test.sh checks this script against stub commands.
set -euo pipefail

services_only=false
if [ "${1:-}" = --services-only ]; then
  services_only=true
  shift
fi
[ $# -eq 1 ] || { echo "usage: scripts/test-env.sh [--services-only] ENV_FILE" >&2; exit 2; }
env_file=$1
mkdir -p "$(dirname "$env_file")"

log() { printf '==> %s\n' "$*"; }
die() { printf 'test-env: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    log "sudo $*"
    sudo "$@"
  else
    die "needs root (or sudo) to run: $*"
  fi
}

# wait_for NAME COMMAND...: up to 30 s for COMMAND to succeed.
wait_for() {
  local name=$1
  shift
  for _ in $(seq 1 30); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 1
  done
  die "$name did not come up within 30 s"
}

db_from_caller=${GPUNEX_TEST_DATABASE_URL:-}
redis_from_caller=${GPUNEX_TEST_REDIS_URL:-}
docker_from_caller=${GPUNEX_TEST_DOCKER_HOST:-}
docker_socket=/var/run/docker.sock
docker_log=${GPUNEX_DOCKERD_LOG:-/var/log/gpunex-dockerd.log}

# --- Debian packages --------------------------------------------------------
need=()
if ! $services_only; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  dpkg -s fonts-noto-core >/dev/null 2>&1 || need+=(fonts-noto-core)
  command -v shellcheck >/dev/null 2>&1 || need+=(shellcheck)
  command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
  if [ -z "$docker_from_caller" ]; then
    { command -v dockerd && command -v docker; } >/dev/null 2>&1 || need+=(docker.io)
    dpkg -s busybox-static >/dev/null 2>&1 || need+=(busybox-static)
  fi
fi
if [ -z "$db_from_caller" ] && ! command -v pg_ctlcluster >/dev/null 2>&1; then
  need+=(postgresql)
fi
if [ -z "$redis_from_caller" ] && ! command -v redis-server >/dev/null 2>&1; then
  need+=(redis-server)
fi
if [ ${#need[@]} -eq 0 ]; then
  if $services_only; then
    log "Debian packages: postgresql and redis-server present"
  else
    log "Debian packages: chromium, fonts-noto-core, shellcheck, libxml2-utils, docker.io, busybox-static present"
  fi
else
  command -v apt-get >/dev/null 2>&1 ||
    die "missing ${need[*]} and no apt-get: install them, then run again"
  apt_log=${TMPDIR:-/tmp}/gpunex-test-env-apt.log
  log "Debian packages: installing ${need[*]} (apt-get update, then apt-get install; log in $apt_log)"
  # Waits up to 5 minutes for another apt-get or dpkg to finish.
  apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300)
  if ! as_root "${apt[@]}" update -qq >"$apt_log" 2>&1 ||
     ! as_root "${apt[@]}" install -y -qq "${need[@]}" >>"$apt_log" 2>&1; then
    tail -n 30 "$apt_log" >&2
    die "apt-get failed (the last lines of $apt_log are above)"
  fi
fi
if ! $services_only; then
  log "Chromium: $(chromium --version 2>/dev/null || echo 'chromium --version failed')"
fi

# --- PostgreSQL -------------------------------------------------------------
if [ -n "$db_from_caller" ]; then
  log "PostgreSQL: GPUNEX_TEST_DATABASE_URL is set by the caller; using it as it is"
  database_url=$db_from_caller
else
  # Two checkouts setting up at once on a fresh machine (two make test side
  # by side) would both restart the cluster below, one while the other's
  # psql talks to it ("the database system is shutting down"): the start
  # and the raise of max_connections happen under a machine-wide lock, so
  # the second finds what the first did. The cluster is started with the
  # lock's descriptor closed (9>&-): a daemon keeps what it inherits, and
  # one holding the lock would make every later set-up wait for ever.
  exec 9>"${TMPDIR:-/tmp}/gpunex-test-env-postgres.lock"
  flock 9
  if pg_isready -h 127.0.0.1 -p 5432 -q; then
    log "PostgreSQL: running on 127.0.0.1:5432"
  else
    cluster=$(pg_lsclusters -h | awk '$3 == 5432 { print $1, $2; exit }')
    [ -n "$cluster" ] ||
      die "PostgreSQL: no cluster on port 5432 (pg_lsclusters); create one, or set GPUNEX_TEST_DATABASE_URL"
    log "PostgreSQL: starting cluster $cluster (pg_ctlcluster)"
    # shellcheck disable=SC2086 # "$cluster" is "VERSION NAME"
    as_root pg_ctlcluster --skip-systemctl-redirect $cluster start 9>&-
    wait_for PostgreSQL pg_isready -h 127.0.0.1 -p 5432 -q
    log "PostgreSQL: running on 127.0.0.1:5432"
  fi
  # The Go tests run several packages at once (scripts/test-go.sh), each
  # starting platform servers in schemas of their own that hold a session
  # per background task they lead (advisory locks) beside their pools;
  # PostgreSQL's default of 100 connections runs out (SQLSTATE 53300).
  pg_connections=400
  max_conn=$(psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -Atq -c 'SHOW max_connections' 2>/dev/null) || max_conn=0
  if [ "${max_conn:-0}" -lt "$pg_connections" ]; then
    cluster=$(pg_lsclusters -h 2>/dev/null | awk '$3 == 5432 { print $1, $2; exit }') || cluster=
    if [ -z "$cluster" ]; then
      log "PostgreSQL: max_connections is ${max_conn:-unknown} and no cluster of pg_lsclusters serves port 5432 to raise it; the Go tests may run out of connections (set max_connections to $pg_connections)"
    else
      log "PostgreSQL: max_connections ${max_conn:-unknown} -> $pg_connections (ALTER SYSTEM), restarting cluster $cluster"
      psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -q -v ON_ERROR_STOP=1 \
        -c "ALTER SYSTEM SET max_connections = $pg_connections" ||
        die "PostgreSQL: cannot set max_connections as user postgres over TCP"
      # shellcheck disable=SC2086 # "$cluster" is "VERSION NAME"
      as_root pg_ctlcluster --skip-systemctl-redirect $cluster restart 9>&-
      wait_for PostgreSQL pg_isready -h 127.0.0.1 -p 5432 -q
    fi
  fi
  exec 9>&-
  # One database per checkout and purpose, so that two checkouts on one
  # machine (or make test and make bench) never drop each other's.
  abs_env=$(cd "$(dirname "$env_file")" && pwd)/$(basename "$env_file")
  db=gpunex_test_$(printf '%s' "$abs_env" | cksum | awk '{ print $1 }')
  log "PostgreSQL: fresh database $db (dropped and created)"
  PGOPTIONS='--client-min-messages=warning' psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -q -v ON_ERROR_STOP=1 \
    -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" ||
    die "PostgreSQL: cannot create $db as user postgres over TCP (the tests need trust or a password in ~/.pgpass); or set GPUNEX_TEST_DATABASE_URL"
  database_url="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
fi

# --- Redis ------------------------------------------------------------------
if [ -n "$redis_from_caller" ]; then
  log "Redis: GPUNEX_TEST_REDIS_URL is set by the caller; using it as it is"
  redis_url=$redis_from_caller
else
  if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    log "Redis: running on 127.0.0.1:6379"
  else
    if [ "$(id -u)" = 0 ]; then
      redis_dir=${GPUNEX_REDIS_DIR:-/var/lib/redis}
    else
      redis_dir=${GPUNEX_REDIS_DIR:-${TMPDIR:-/tmp}/gpunex-redis}
    fi
    mkdir -p "$redis_dir"
    log "Redis: starting redis-server on 127.0.0.1:6379 (no persistence; log in $redis_dir/test.log)"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir "$redis_dir" --logfile "$redis_dir/test.log"
    wait_for Redis redis-cli -h 127.0.0.1 -p 6379 ping
    log "Redis: running on 127.0.0.1:6379"
  fi
  redis_url=redis://127.0.0.1:6379/0
fi

# --- Docker -----------------------------------------------------------------
docker_up() { docker --host "unix://$docker_socket" version --format '{{.Server.Version}}' 2>/dev/null; }
docker_host=
if $services_only; then
  :
elif [ -n "$docker_from_caller" ]; then
  log "Docker: GPUNEX_TEST_DOCKER_HOST is set by the caller; using it as it is"
  docker_host=$docker_from_caller
else
  if version=$(docker_up); then
    log "Docker: engine $version answering on $docker_socket"
  else
    log "Docker: starting dockerd on $docker_socket (log in $docker_log)"
    if [ "$(id -u)" = 0 ]; then
      dockerd --host "unix://$docker_socket" >>"$docker_log" 2>&1 </dev/null &
      disown
    else
      log "sudo dockerd --host unix://$docker_socket"
      sudo -b sh -c 'exec dockerd --host "unix://$1" >>"$2" 2>&1 </dev/null' sh "$docker_socket" "$docker_log"
    fi
    wait_for Docker docker_up
    log "Docker: engine $(docker_up) answering on $docker_socket"
  fi
  docker_host=unix://$docker_socket
fi

{
  printf 'export GPUNEX_TEST_DATABASE_URL=%q\n' "$database_url"
  printf 'export GPUNEX_TEST_REDIS_URL=%q\n' "$redis_url"
  if [ -n "$docker_host" ]; then
    printf 'export GPUNEX_TEST_DOCKER_HOST=%q\n' "$docker_host"
  fi
} >"$env_file"
log "Test environment written to $env_file"
