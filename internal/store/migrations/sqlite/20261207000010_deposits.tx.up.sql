-- Issue 26. Customers deposit USDC on Solana through Solana Pay transfer
-- requests. A deposit is one request: its reference key (a base58 public
-- key, unique) is how the platform finds the transfers that answer it on
-- chain; its amount is what was asked (NULL: an open amount). Each
-- transaction found is one deposit_transfers row, unique by signature, so
-- however many replicas or restarts follow the request a transaction is
-- credited at most once; it is SEEN when found, then CREDITED (with the
-- ledger transaction that credited it) or REFUSED (with why) once
-- finalized.
CREATE TABLE deposits (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id         INTEGER    NOT NULL REFERENCES users (id),
    reference       TEXT      NOT NULL,
    amount_micros   BIGINT    CHECK (amount_micros IS NULL OR amount_micros > 0),
    state           TEXT      NOT NULL CHECK (state IN ('WAITING', 'SEEN', 'CREDITED', 'EXPIRED')),
    credited_micros BIGINT    NOT NULL CHECK (credited_micros >= 0),
    created_at      TIMESTAMP NOT NULL,
    expires_at      TIMESTAMP NOT NULL,
    follow_until    TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX deposits_reference_key ON deposits (reference);
--bun:split
CREATE INDEX deposits_user_idx ON deposits (user_id, id);
--bun:split
CREATE INDEX deposits_follow_idx ON deposits (follow_until);
--bun:split
CREATE TABLE deposit_transfers (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    deposit_id            INTEGER    NOT NULL REFERENCES deposits (id),
    signature             TEXT      NOT NULL,
    state                 TEXT      NOT NULL CHECK (state IN ('SEEN', 'CREDITED', 'REFUSED')),
    amount_micros         BIGINT    NOT NULL CHECK (amount_micros >= 0),
    late                  BOOLEAN   NOT NULL,
    issue                 TEXT,
    slot                  BIGINT    NOT NULL,
    ledger_transaction_id INTEGER    REFERENCES ledger_transactions (id),
    seen_at               TIMESTAMP NOT NULL,
    settled_at            TIMESTAMP
);
--bun:split
CREATE UNIQUE INDEX deposit_transfers_signature_key ON deposit_transfers (signature);
--bun:split
CREATE INDEX deposit_transfers_deposit_idx ON deposit_transfers (deposit_id);
--bun:split
CREATE INDEX deposit_transfers_seen_idx ON deposit_transfers (state) WHERE state = 'SEEN';
