-- Issue 26. Each GPU's headline TFLOPS from its latest scored run (the
-- first of TENSOR_BF16, TENSOR_FP16, FP32 it measured: models.HeadlineFigure),
-- so the marketplace sorts by measured TFLOPS per USDC in SQL. Filled from
-- the latest run's figures here; bench writes it with every result after.
ALTER TABLE gpu_bench_status ADD COLUMN tflops REAL;
--bun:split
UPDATE gpu_bench_status SET tflops = (
    SELECT json_extract(f.value, '$.measured')
    FROM gpu_benchmarks gb, json_each(gb.figures) f
    WHERE gb.id = gpu_bench_status.latest_id
      AND json_extract(f.value, '$.supported')
      AND json_extract(f.value, '$.measured') IS NOT NULL
      AND json_extract(f.value, '$.metric') IN ('TENSOR_BF16_TFLOPS', 'TENSOR_FP16_TFLOPS', 'FP32_TFLOPS')
    ORDER BY CASE json_extract(f.value, '$.metric') WHEN 'TENSOR_BF16_TFLOPS' THEN 0 WHEN 'TENSOR_FP16_TFLOPS' THEN 1 ELSE 2 END
    LIMIT 1
);
