CREATE TABLE reliability_machines (
    machine_id  INTEGER PRIMARY KEY REFERENCES machines (id) ON DELETE CASCADE,
    provider_id INTEGER NOT NULL,
    up_num      DOUBLE PRECISION NOT NULL,
    up_den      DOUBLE PRECISION NOT NULL,
    up_at       TIMESTAMP NOT NULL,
    job_num     DOUBLE PRECISION NOT NULL,
    job_den     DOUBLE PRECISION NOT NULL,
    job_at      TIMESTAMP NOT NULL,
    cons_num    DOUBLE PRECISION NOT NULL,
    cons_den    DOUBLE PRECISION NOT NULL,
    cons_at     TIMESTAMP NOT NULL,
    status      TEXT NOT NULL,
    since       TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX reliability_machines_provider_idx ON reliability_machines (provider_id);
--bun:split
CREATE TABLE reliability_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    machine_id  INTEGER NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    provider_id INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    at          TIMESTAMP NOT NULL,
    ended_at    TIMESTAMP,
    magnitude   DOUBLE PRECISION NOT NULL,
    weight_key  DOUBLE PRECISION NOT NULL,
    detail      TEXT NOT NULL
);
--bun:split
CREATE INDEX reliability_events_provider_idx ON reliability_events (provider_id, weight_key DESC);
--bun:split
CREATE INDEX reliability_events_machine_idx ON reliability_events (machine_id, weight_key DESC);
--bun:split
CREATE TABLE reliability_snapshots (
    provider_id INTEGER NOT NULL,
    machine_id  INTEGER NOT NULL,
    day         TIMESTAMP NOT NULL,
    score       INTEGER NOT NULL,
    PRIMARY KEY (provider_id, machine_id, day)
);
--bun:split
CREATE TABLE reliability_providers (
    provider_id INTEGER PRIMARY KEY REFERENCES providers (id) ON DELETE CASCADE,
    score       INTEGER NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
