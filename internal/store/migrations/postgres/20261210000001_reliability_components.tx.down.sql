ALTER TABLE reliability_providers DROP COLUMN consistency;
--bun:split
ALTER TABLE reliability_providers DROP COLUMN completion;
--bun:split
ALTER TABLE reliability_providers DROP COLUMN uptime;
