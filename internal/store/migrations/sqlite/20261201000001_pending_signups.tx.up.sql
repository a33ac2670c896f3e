CREATE TABLE pending_signups (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    email         TEXT      NOT NULL,
    name          TEXT      NOT NULL,
    password_hash TEXT      NOT NULL,
    token_hash    TEXT      NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    expires_at    TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX pending_signups_token_hash_key ON pending_signups (token_hash);
--bun:split
CREATE INDEX pending_signups_email_idx ON pending_signups (email);
--bun:split
CREATE INDEX pending_signups_expires_at_idx ON pending_signups (expires_at);
