DROP INDEX machine_gpus_live_machine_idx;
--bun:split
DROP INDEX machine_gpus_live_model_idx;
