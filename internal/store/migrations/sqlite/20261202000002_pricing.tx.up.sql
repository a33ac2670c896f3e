CREATE TABLE gpu_prices (
    provider_id  INTEGER   NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    model_key    TEXT      NOT NULL,
    price_micros INTEGER   NOT NULL CHECK (price_micros > 0),
    updated_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (provider_id, model_key)
);
--bun:split
CREATE TABLE gpu_price_changes (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id  INTEGER   NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    model_key    TEXT      NOT NULL,
    price_micros INTEGER   NOT NULL CHECK (price_micros > 0),
    at           TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX gpu_price_changes_provider_idx ON gpu_price_changes (provider_id, model_key, id);
--bun:split
CREATE TABLE provider_schedules (
    provider_id            INTEGER   PRIMARY KEY REFERENCES providers (id) ON DELETE CASCADE,
    availability_kind      TEXT      NOT NULL CHECK (availability_kind IN ('ALWAYS', 'WEEKLY')),
    availability_time_zone TEXT,
    availability_windows   TEXT      NOT NULL DEFAULT '[]',
    open_from              TIMESTAMP,
    open_until             TIMESTAMP,
    updated_at             TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX provider_schedules_open_idx ON provider_schedules (open_from, open_until);
--bun:split
CREATE TABLE maintenance_windows (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id INTEGER   NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    machine_id  INTEGER   REFERENCES machines (id) ON DELETE CASCADE,
    starts_at   TIMESTAMP NOT NULL,
    ends_at     TIMESTAMP NOT NULL,
    note        TEXT,
    created_at  TIMESTAMP NOT NULL,
    CHECK (ends_at > starts_at)
);
--bun:split
CREATE INDEX maintenance_windows_provider_idx ON maintenance_windows (provider_id, ends_at);
--bun:split
CREATE INDEX maintenance_windows_machine_idx ON maintenance_windows (machine_id, ends_at);
