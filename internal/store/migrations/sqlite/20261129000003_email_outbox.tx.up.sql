CREATE TABLE email_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    kind            TEXT      NOT NULL,
    to_address      TEXT      NOT NULL,
    subject         TEXT      NOT NULL,
    text_body       TEXT      NOT NULL,
    html_body       TEXT,
    dedupe_key      TEXT,
    created_at      TIMESTAMP NOT NULL,
    attempts        INTEGER   NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP NOT NULL,
    locked_until    TIMESTAMP,
    sent_at         TIMESTAMP,
    failed_at       TIMESTAMP,
    last_error      TEXT
);
--bun:split
CREATE UNIQUE INDEX email_outbox_dedupe_key_key ON email_outbox (dedupe_key);
--bun:split
CREATE INDEX email_outbox_pending_idx ON email_outbox (next_attempt_at, id) WHERE sent_at IS NULL AND failed_at IS NULL;
