ALTER TABLE email_outbox DROP COLUMN language;
