-- Issue 24, item 3. A benchmark run carries the nonce the server drew for
-- it (its kernels' outputs, and so the checksums of its result, depend on
-- it); a result refused as untrustworthy (a checksum that does not match,
-- figures its own evidence contradicts) is recorded on its run with when
-- and why, for the GPUnex team to read; and each machine has an
-- unannounced run due at a random time in each period.
ALTER TABLE benchmark_runs ADD COLUMN nonce TEXT;
--bun:split
ALTER TABLE benchmark_runs ADD COLUMN refused_at TIMESTAMP;
--bun:split
ALTER TABLE benchmark_runs ADD COLUMN refusal TEXT;
--bun:split
CREATE INDEX benchmark_runs_refused_idx ON benchmark_runs (refused_at) WHERE refused_at IS NOT NULL;
--bun:split
ALTER TABLE machine_bench_schedules ADD COLUMN surprise_at TIMESTAMP;
--bun:split
CREATE INDEX machine_bench_schedules_surprise_idx ON machine_bench_schedules (surprise_at);
