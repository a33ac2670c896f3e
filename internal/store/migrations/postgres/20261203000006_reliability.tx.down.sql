DROP TABLE reliability_providers;
--bun:split
DROP TABLE reliability_snapshots;
--bun:split
DROP TABLE reliability_events;
--bun:split
DROP TABLE reliability_machines;
