ALTER TABLE machines DROP COLUMN disk_free_bytes;
--bun:split
ALTER TABLE machines DROP COLUMN disk_bytes;
--bun:split
ALTER TABLE machines DROP COLUMN ram_bytes;
--bun:split
ALTER TABLE machines DROP COLUMN cpu_cores;
--bun:split
ALTER TABLE machines DROP COLUMN cpu_model;
