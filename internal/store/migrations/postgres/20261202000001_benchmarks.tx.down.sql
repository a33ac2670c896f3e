DROP TABLE machine_bench_schedules;
--bun:split
DROP TABLE gpu_bench_status;
--bun:split
DROP TABLE gpu_benchmarks;
--bun:split
DROP TABLE benchmark_runs;
