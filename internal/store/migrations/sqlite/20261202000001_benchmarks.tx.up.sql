CREATE TABLE benchmark_runs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    run_uid      TEXT      NOT NULL,
    machine_id   INTEGER   NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    provider_id  INTEGER   NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    reason       TEXT      NOT NULL CHECK (reason IN ('REGISTRATION', 'SCHEDULED', 'HARDWARE_CHANGE', 'REQUESTED', 'RETRY')),
    state        TEXT      NOT NULL CHECK (state IN ('PENDING', 'COMPLETED', 'EXPIRED')),
    requested_at TIMESTAMP NOT NULL,
    started_at   TIMESTAMP,
    finished_at  TIMESTAMP,
    simulated    BOOLEAN   NOT NULL,
    network      TEXT,
    storage      TEXT
);
--bun:split
CREATE UNIQUE INDEX benchmark_runs_run_uid_key ON benchmark_runs (run_uid);
--bun:split
CREATE INDEX benchmark_runs_machine_idx ON benchmark_runs (machine_id, id);
--bun:split
CREATE INDEX benchmark_runs_pending_idx ON benchmark_runs (state, requested_at);
--bun:split
CREATE TABLE gpu_benchmarks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      INTEGER   NOT NULL REFERENCES benchmark_runs (id) ON DELETE CASCADE,
    gpu_id      INTEGER   NOT NULL REFERENCES machine_gpus (id) ON DELETE CASCADE,
    machine_id  INTEGER   NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    reason      TEXT      NOT NULL,
    at          TIMESTAMP NOT NULL,
    simulated   BOOLEAN   NOT NULL,
    outcome     TEXT      NOT NULL CHECK (outcome IN ('COMPLETED', 'FAILED', 'POSTPONED')),
    error       TEXT,
    score       INTEGER   CHECK (score BETWEEN 0 AND 100),
    passed      BOOLEAN   NOT NULL,
    consistency REAL,
    figures     TEXT      NOT NULL,
    evidence    TEXT,
    shortfalls  TEXT      NOT NULL,
    guidance    TEXT      NOT NULL
);
--bun:split
CREATE UNIQUE INDEX gpu_benchmarks_run_gpu_key ON gpu_benchmarks (run_id, gpu_id);
--bun:split
CREATE INDEX gpu_benchmarks_gpu_idx ON gpu_benchmarks (gpu_id, at);
--bun:split
CREATE TABLE gpu_bench_status (
    gpu_id             INTEGER   PRIMARY KEY REFERENCES machine_gpus (id) ON DELETE CASCADE,
    machine_id         INTEGER   NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    provider_id        INTEGER   NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    listing            TEXT      NOT NULL CHECK (listing IN ('PENDING', 'LISTED', 'DELISTED')),
    score              INTEGER   CHECK (score BETWEEN 0 AND 100),
    latest_id          INTEGER   REFERENCES gpu_benchmarks (id) ON DELETE SET NULL,
    listing_changed_at TIMESTAMP NOT NULL,
    shortfalls         TEXT      NOT NULL,
    guidance           TEXT      NOT NULL
);
--bun:split
CREATE INDEX gpu_bench_status_provider_idx ON gpu_bench_status (provider_id, machine_id);
--bun:split
CREATE TABLE machine_bench_schedules (
    machine_id        INTEGER   PRIMARY KEY REFERENCES machines (id) ON DELETE CASCADE,
    next_run_at       TIMESTAMP NOT NULL,
    last_requested_at TIMESTAMP,
    hardware          TEXT      NOT NULL,
    retry             BOOLEAN   NOT NULL DEFAULT FALSE
);
--bun:split
CREATE INDEX machine_bench_schedules_due_idx ON machine_bench_schedules (next_run_at);
