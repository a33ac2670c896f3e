DROP TABLE benchmark_run_steps;
