DROP TABLE agent_commands;
--bun:split
DROP TABLE machine_status_intervals;
--bun:split
DROP TABLE machine_inventory_changes;
--bun:split
DROP TABLE machine_gpus;
--bun:split
DROP TABLE machines;
