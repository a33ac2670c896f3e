DROP INDEX machine_bench_schedules_surprise_idx;
--bun:split
ALTER TABLE machine_bench_schedules DROP COLUMN surprise_at;
--bun:split
DROP INDEX benchmark_runs_refused_idx;
--bun:split
ALTER TABLE benchmark_runs DROP COLUMN refusal;
--bun:split
ALTER TABLE benchmark_runs DROP COLUMN refused_at;
--bun:split
ALTER TABLE benchmark_runs DROP COLUMN nonce;
