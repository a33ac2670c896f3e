CREATE TABLE rentals (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    job_uid           TEXT      NOT NULL,
    customer_id       INTEGER   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider_id       INTEGER   NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    machine_id        INTEGER   NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    model_key         TEXT      NOT NULL,
    gpu_count         INTEGER   NOT NULL CHECK (gpu_count >= 1),
    price_micros      BIGINT    NOT NULL CHECK (price_micros >= 0),
    image             TEXT      NOT NULL,
    command           TEXT      NOT NULL,
    env_names         TEXT      NOT NULL,
    location_city     TEXT,
    location_country  TEXT,
    location_region   TEXT,
    tier              TEXT      NOT NULL,
    state             TEXT      NOT NULL CHECK (state IN ('STARTING', 'RUNNING', 'STOPPING', 'COMPLETED', 'STOPPED', 'FAILED', 'INTERRUPTED')),
    cause             TEXT      CHECK (cause IN ('PROVIDER', 'CUSTOMER', 'PLATFORM')),
    message           TEXT,
    exit_code         INTEGER,
    log_tail          TEXT,
    ends_by           TIMESTAMP,
    created_at        TIMESTAMP NOT NULL,
    started_at        TIMESTAMP,
    stop_requested_at TIMESTAMP,
    ended_at          TIMESTAMP,
    updated_at        TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX rentals_job_uid_key ON rentals (job_uid);
--bun:split
CREATE INDEX rentals_customer_idx ON rentals (customer_id, id);
--bun:split
CREATE INDEX rentals_provider_idx ON rentals (provider_id, id);
--bun:split
CREATE INDEX rentals_active_idx ON rentals (machine_id) WHERE state IN ('STARTING', 'RUNNING', 'STOPPING');
--bun:split
CREATE TABLE rental_gpus (
    rental_id INTEGER NOT NULL REFERENCES rentals (id) ON DELETE CASCADE,
    gpu_id    INTEGER NOT NULL REFERENCES machine_gpus (id) ON DELETE CASCADE,
    PRIMARY KEY (rental_id, gpu_id)
);
--bun:split
CREATE INDEX rental_gpus_gpu_idx ON rental_gpus (gpu_id);
--bun:split
CREATE TABLE gpu_allocations (
    gpu_id     INTEGER   PRIMARY KEY REFERENCES machine_gpus (id) ON DELETE CASCADE,
    rental_id  INTEGER   NOT NULL REFERENCES rentals (id) ON DELETE CASCADE,
    machine_id INTEGER   NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX gpu_allocations_rental_idx ON gpu_allocations (rental_id);
--bun:split
CREATE TABLE provider_market_profiles (
    provider_id       INTEGER   PRIMARY KEY REFERENCES providers (id) ON DELETE CASCADE,
    location_city     TEXT,
    location_country  TEXT,
    location_region   TEXT,
    commitment_months INTEGER   NOT NULL,
    updated_at        TIMESTAMP NOT NULL
);
--bun:split
CREATE TABLE machine_market_stats (
    machine_id  INTEGER          PRIMARY KEY REFERENCES machines (id) ON DELETE CASCADE,
    uptime      DOUBLE PRECISION NOT NULL,
    computed_at TIMESTAMP        NOT NULL
);
--bun:split
CREATE TABLE model_market_prices (
    model_key     TEXT      PRIMARY KEY,
    median_micros BIGINT    NOT NULL,
    computed_at   TIMESTAMP NOT NULL
);
