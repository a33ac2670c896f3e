-- Issue 26. What the agent says about its host at registration: the CPU's
-- model and logical CPUs, the RAM, and the size and free space of the
-- filesystem of the agent's data directory. They are the provider's claim
-- (like driver_version), listed as such; NULL where the agent did not
-- report them (agents before issue 26). Bytes are floating point, as
-- machine_gpus.vram_bytes is: the API carries them as Floats.
ALTER TABLE machines ADD COLUMN cpu_model TEXT;
--bun:split
ALTER TABLE machines ADD COLUMN cpu_cores INTEGER;
--bun:split
ALTER TABLE machines ADD COLUMN ram_bytes DOUBLE PRECISION;
--bun:split
ALTER TABLE machines ADD COLUMN disk_bytes DOUBLE PRECISION;
--bun:split
ALTER TABLE machines ADD COLUMN disk_free_bytes DOUBLE PRECISION;
