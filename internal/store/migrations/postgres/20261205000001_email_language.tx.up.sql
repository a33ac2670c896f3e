ALTER TABLE email_outbox ADD COLUMN language TEXT CHECK (language IN ('en', 'es', 'pt', 'hi', 'ar'));
