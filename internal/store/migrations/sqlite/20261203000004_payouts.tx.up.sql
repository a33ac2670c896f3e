CREATE TABLE payout_methods (
    provider_id    INTEGER    PRIMARY KEY REFERENCES providers (id) ON DELETE CASCADE,
    schedule       TEXT      NOT NULL CHECK (schedule IN ('WEEKLY', 'MONTHLY')),
    kind           TEXT      NOT NULL CHECK (kind IN ('SOLANA', 'BANK')),
    solana_address TEXT,
    iban           TEXT,
    bic            TEXT,
    account_holder TEXT,
    changed_at     TIMESTAMP NOT NULL,
    hold_until     TIMESTAMP NOT NULL
);
--bun:split
CREATE TABLE payouts (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id             INTEGER    NOT NULL REFERENCES providers (id),
    period_start            TIMESTAMP NOT NULL,
    period_end              TIMESTAMP NOT NULL,
    amount_micros           BIGINT    NOT NULL CHECK (amount_micros > 0),
    kind                    TEXT      NOT NULL CHECK (kind IN ('SOLANA', 'BANK', 'MANUAL')),
    destination             TEXT      NOT NULL,
    state                   TEXT      NOT NULL CHECK (state IN ('PENDING', 'PROCESSING', 'PAID', 'FAILED')),
    reference               TEXT      NOT NULL,
    signature               TEXT,
    raw_tx                  TEXT,
    last_valid_block_height BIGINT,
    paid_reference          TEXT,
    failure                 TEXT,
    created_at              TIMESTAMP NOT NULL,
    updated_at              TIMESTAMP NOT NULL,
    paid_at                 TIMESTAMP
);
--bun:split
CREATE UNIQUE INDEX payouts_provider_period_key ON payouts (provider_id, period_start);
--bun:split
CREATE UNIQUE INDEX payouts_reference_key ON payouts (reference);
--bun:split
CREATE INDEX payouts_open_idx ON payouts (state) WHERE state IN ('PENDING', 'PROCESSING');
