-- Issue 29. A provider's score's parts beside it (uptime, completion,
-- consistency, each 0–1), written by the reliability job with the score, so
-- the admins' list shows what a score is made of without computing every
-- provider's summary. Null until the job next runs.
ALTER TABLE reliability_providers ADD COLUMN uptime REAL;
--bun:split
ALTER TABLE reliability_providers ADD COLUMN completion REAL;
--bun:split
ALTER TABLE reliability_providers ADD COLUMN consistency REAL;
