ALTER TABLE pending_signups DROP COLUMN language;
--bun:split
ALTER TABLE users DROP COLUMN language;
