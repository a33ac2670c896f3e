ALTER TABLE gpu_bench_status DROP COLUMN tflops;
