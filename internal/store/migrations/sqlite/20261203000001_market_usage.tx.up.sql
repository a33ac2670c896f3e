CREATE TABLE model_supply (
    provider_id  INTEGER NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    model_key    TEXT      NOT NULL,
    price_micros BIGINT    NOT NULL,
    gpus         INTEGER   NOT NULL,
    rented       INTEGER   NOT NULL,
    tier         TEXT      NOT NULL,
    city         TEXT      NOT NULL DEFAULT '',
    country      TEXT      NOT NULL DEFAULT '',
    continent    TEXT      NOT NULL DEFAULT '',
    refreshed_at TIMESTAMP NOT NULL,
    PRIMARY KEY (provider_id, model_key)
);
--bun:split
CREATE INDEX model_supply_model_idx ON model_supply (model_key);
--bun:split
CREATE TABLE market_usage (
    model_key         TEXT      NOT NULL,
    week_start        TIMESTAMP NOT NULL,
    country           TEXT      NOT NULL,
    city              TEXT      NOT NULL,
    continent         TEXT      NOT NULL,
    band              INTEGER   NOT NULL,
    available_seconds BIGINT    NOT NULL,
    rented_seconds    BIGINT    NOT NULL,
    PRIMARY KEY (model_key, week_start, country, city, band)
);
--bun:split
CREATE TABLE provider_usage (
    provider_id       INTEGER NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    model_key         TEXT      NOT NULL,
    week_start        TIMESTAMP NOT NULL,
    band              INTEGER   NOT NULL,
    available_seconds BIGINT    NOT NULL,
    rented_seconds    BIGINT    NOT NULL,
    PRIMARY KEY (provider_id, model_key, week_start, band)
);
