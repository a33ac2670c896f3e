ALTER TABLE rentals ADD COLUMN fee_bps INTEGER NOT NULL DEFAULT 1500;
--bun:split
CREATE TABLE ledger_accounts (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    kind           TEXT      NOT NULL,
    owner_id       INTEGER    NOT NULL,
    balance_micros BIGINT    NOT NULL CHECK (balance_micros >= 0 OR kind = 'DEPOSITS'),
    updated_at     TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX ledger_accounts_kind_owner_key ON ledger_accounts (kind, owner_id);
--bun:split
CREATE TABLE ledger_transactions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT      NOT NULL,
    reference  TEXT      NOT NULL,
    rental_id  INTEGER REFERENCES rentals (id),
    payout_id  INTEGER,
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX ledger_transactions_deposit_reference_key ON ledger_transactions (reference) WHERE kind = 'DEPOSIT';
--bun:split
CREATE INDEX rentals_ended_idx ON rentals (ended_at) WHERE ended_at IS NOT NULL;
--bun:split
CREATE INDEX ledger_transactions_rental_idx ON ledger_transactions (rental_id) WHERE rental_id IS NOT NULL;
--bun:split
CREATE TABLE ledger_entries (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    transaction_id INTEGER    NOT NULL REFERENCES ledger_transactions (id),
    account_id     INTEGER    NOT NULL REFERENCES ledger_accounts (id),
    amount_micros  BIGINT    NOT NULL,
    created_at     TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, id);
--bun:split
CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (transaction_id);
--bun:split
CREATE TABLE rental_meters (
    rental_id      INTEGER    PRIMARY KEY REFERENCES rentals (id),
    billed_until   TIMESTAMP NOT NULL,
    charged_micros BIGINT    NOT NULL,
    fee_micros     BIGINT    NOT NULL,
    closed         BOOLEAN   NOT NULL,
    low_funds_at   TIMESTAMP,
    updated_at     TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX rental_meters_open_idx ON rental_meters (rental_id) WHERE NOT closed;
--bun:split
CREATE TABLE earnings_gpu_hours (
    gpu_id       INTEGER    NOT NULL,
    hour         TIMESTAMP NOT NULL,
    provider_id  INTEGER    NOT NULL,
    machine_id   INTEGER    NOT NULL,
    model_key    TEXT      NOT NULL,
    gross_micros BIGINT    NOT NULL,
    fee_micros   BIGINT    NOT NULL,
    PRIMARY KEY (gpu_id, hour)
);
--bun:split
CREATE INDEX earnings_gpu_hours_provider_idx ON earnings_gpu_hours (provider_id, hour);
--bun:split
CREATE TABLE earnings_provider_hours (
    provider_id  INTEGER    NOT NULL,
    model_key    TEXT      NOT NULL,
    hour         TIMESTAMP NOT NULL,
    gross_micros BIGINT    NOT NULL,
    fee_micros   BIGINT    NOT NULL,
    PRIMARY KEY (provider_id, model_key, hour)
);
--bun:split
CREATE INDEX earnings_provider_hours_hour_idx ON earnings_provider_hours (provider_id, hour);
