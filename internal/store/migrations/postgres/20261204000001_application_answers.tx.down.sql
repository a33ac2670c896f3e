ALTER TABLE application_events DROP COLUMN answers;
