-- The duplicate GPUs removed and the machines' simulated flags recomputed
-- on the way up stay as they are: they were wrong before.
DROP TABLE registration_refusals;
--bun:split
DROP INDEX machine_gpus_live_uuid_key;
