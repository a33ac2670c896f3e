CREATE TABLE provider_applications (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id           INTEGER   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status            TEXT      NOT NULL CHECK (status IN ('SUBMITTED', 'INFO_REQUESTED', 'APPROVED', 'REJECTED')),
    full_name         TEXT      NOT NULL,
    email             TEXT      NOT NULL,
    company           TEXT,
    ups_protected     BOOLEAN   NOT NULL,
    commitment_months INTEGER   NOT NULL,
    maintenance_notes TEXT,
    suggested_tier    TEXT      NOT NULL CHECK (suggested_tier IN ('ENTERPRISE', 'COMMUNITY')),
    suggested_reasons TEXT      NOT NULL DEFAULT '[]',
    tier              TEXT      CHECK (tier IN ('ENTERPRISE', 'COMMUNITY')),
    submitted_at      TIMESTAMP NOT NULL,
    updated_at        TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX provider_applications_user_id_idx ON provider_applications (user_id, id);
--bun:split
CREATE INDEX provider_applications_status_idx ON provider_applications (status, id);
--bun:split
CREATE UNIQUE INDEX provider_applications_one_open_key ON provider_applications (user_id) WHERE status IN ('SUBMITTED', 'INFO_REQUESTED');
--bun:split
CREATE TABLE application_gpus (
    id                        INTEGER PRIMARY KEY AUTOINCREMENT,
    application_id            INTEGER NOT NULL REFERENCES provider_applications (id) ON DELETE CASCADE,
    position                  INTEGER NOT NULL,
    model_key                 TEXT,
    other_model               TEXT,
    quantity                  INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 10000),
    ram_gb                    INTEGER NOT NULL CHECK (ram_gb > 0),
    upload_gbps               REAL    NOT NULL CHECK (upload_gbps > 0),
    download_gbps             REAL    NOT NULL CHECK (download_gbps > 0),
    availability_kind         TEXT    NOT NULL CHECK (availability_kind IN ('ALWAYS', 'WEEKLY')),
    availability_time_zone    TEXT,
    availability_windows      TEXT    NOT NULL DEFAULT '[]',
    location_city             TEXT,
    location_country          TEXT,
    location_region           TEXT
);
--bun:split
CREATE INDEX application_gpus_application_id_idx ON application_gpus (application_id, position);
--bun:split
CREATE TABLE application_events (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    application_id INTEGER   NOT NULL REFERENCES provider_applications (id) ON DELETE CASCADE,
    actor_user_id  INTEGER   NOT NULL REFERENCES users (id),
    actor_name     TEXT      NOT NULL,
    actor_is_admin BOOLEAN   NOT NULL,
    action         TEXT      NOT NULL,
    message        TEXT,
    tier           TEXT,
    at             TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX application_events_application_id_idx ON application_events (application_id, id);
--bun:split
CREATE TABLE providers (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id        INTEGER   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    application_id INTEGER   NOT NULL REFERENCES provider_applications (id),
    tier           TEXT      NOT NULL CHECK (tier IN ('ENTERPRISE', 'COMMUNITY')),
    name           TEXT      NOT NULL,
    created_at     TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX providers_user_id_key ON providers (user_id);
--bun:split
CREATE UNIQUE INDEX providers_application_id_key ON providers (application_id);
--bun:split
CREATE TABLE agent_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id  INTEGER   NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    name         TEXT      NOT NULL,
    prefix       TEXT      NOT NULL,
    token_hash   TEXT      NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP,
    revoked_at   TIMESTAMP
);
--bun:split
CREATE UNIQUE INDEX agent_tokens_token_hash_key ON agent_tokens (token_hash);
--bun:split
CREATE INDEX agent_tokens_provider_id_idx ON agent_tokens (provider_id, id);
