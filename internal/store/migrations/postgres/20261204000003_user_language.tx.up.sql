ALTER TABLE users ADD COLUMN language TEXT NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'es', 'pt', 'hi', 'ar'));
--bun:split
ALTER TABLE pending_signups ADD COLUMN language TEXT NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'es', 'pt', 'hi', 'ar'));
