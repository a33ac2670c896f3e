DROP TABLE application_notices;
--bun:split
ALTER TABLE provider_applications DROP COLUMN resubmissions;
