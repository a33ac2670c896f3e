-- Issue 26. Each GPU's headline TFLOPS from its latest scored run (the
-- first of TENSOR_BF16, TENSOR_FP16, FP32 it measured: models.HeadlineFigure),
-- so the marketplace sorts by measured TFLOPS per USDC in SQL. Filled from
-- the latest run's figures here; bench writes it with every result after.
ALTER TABLE gpu_bench_status ADD COLUMN tflops DOUBLE PRECISION;
--bun:split
UPDATE gpu_bench_status s SET tflops = (
    SELECT (f ->> 'measured')::double precision
    FROM gpu_benchmarks gb, jsonb_array_elements(gb.figures::jsonb) f
    WHERE gb.id = s.latest_id
      AND (f ->> 'supported')::boolean
      AND f ->> 'measured' IS NOT NULL
      AND f ->> 'metric' IN ('TENSOR_BF16_TFLOPS', 'TENSOR_FP16_TFLOPS', 'FP32_TFLOPS')
    ORDER BY CASE f ->> 'metric' WHEN 'TENSOR_BF16_TFLOPS' THEN 0 WHEN 'TENSOR_FP16_TFLOPS' THEN 1 ELSE 2 END
    LIMIT 1
);
