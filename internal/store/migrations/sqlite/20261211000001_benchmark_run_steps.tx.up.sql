-- Issue 29 point 9. A run's parts as the agent reports each one finished
-- (the network, the storage, each GPU), so the Benchmarks tab shows the
-- run going part by part. The agent's word, shown as progress only: the
-- result it submits at the end is what is checked, scored and stored.
CREATE TABLE benchmark_run_steps (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      INTEGER    NOT NULL REFERENCES benchmark_runs (id) ON DELETE CASCADE,
    part        TEXT      NOT NULL CHECK (part IN ('NETWORK', 'STORAGE', 'GPU')),
    gpu_uuid    TEXT      NOT NULL DEFAULT '',
    outcome     TEXT      NOT NULL CHECK (outcome IN ('COMPLETED', 'FAILED', 'POSTPONED')),
    reported_at TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX benchmark_run_steps_part_key ON benchmark_run_steps (run_id, part, gpu_uuid);
