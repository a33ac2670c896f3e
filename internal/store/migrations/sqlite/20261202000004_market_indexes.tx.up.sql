CREATE INDEX machine_gpus_live_model_idx ON machine_gpus (model_key, machine_id) WHERE removed_at IS NULL;
--bun:split
CREATE INDEX machine_gpus_live_machine_idx ON machine_gpus (machine_id, model_key) WHERE removed_at IS NULL;
