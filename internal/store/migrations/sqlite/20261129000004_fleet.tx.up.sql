CREATE TABLE machines (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id       INTEGER   NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    machine_uid       TEXT      NOT NULL,
    hostname          TEXT      NOT NULL,
    agent_version     TEXT      NOT NULL,
    driver_version    TEXT,
    cuda_version      TEXT,
    simulated         BOOLEAN   NOT NULL,
    status            TEXT      NOT NULL CHECK (status IN ('ONLINE', 'OFFLINE')),
    offline_reason    TEXT      CHECK (offline_reason IN ('PLANNED', 'UNPLANNED', 'NEVER_SEEN')),
    status_changed_at TIMESTAMP NOT NULL,
    registered_at     TIMESTAMP NOT NULL,
    updated_at        TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX machines_machine_uid_key ON machines (machine_uid);
--bun:split
CREATE INDEX machines_provider_id_idx ON machines (provider_id, id);
--bun:split
CREATE INDEX machines_status_idx ON machines (status);
--bun:split
CREATE TABLE machine_gpus (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    machine_id    INTEGER   NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    uuid          TEXT      NOT NULL,
    idx           INTEGER   NOT NULL,
    name          TEXT      NOT NULL,
    model_key     TEXT,
    vram_bytes    REAL,
    pci_bus_id    TEXT,
    power_limit_w REAL,
    simulated     BOOLEAN   NOT NULL,
    added_at      TIMESTAMP NOT NULL,
    removed_at    TIMESTAMP
);
--bun:split
CREATE UNIQUE INDEX machine_gpus_machine_uuid_key ON machine_gpus (machine_id, uuid);
--bun:split
CREATE TABLE machine_inventory_changes (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    machine_id INTEGER   NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    at         TIMESTAMP NOT NULL,
    change     TEXT      NOT NULL,
    gpu_uuid   TEXT      NOT NULL,
    detail     TEXT      NOT NULL
);
--bun:split
CREATE INDEX machine_inventory_changes_machine_idx ON machine_inventory_changes (machine_id, id);
--bun:split
CREATE TABLE machine_status_intervals (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    machine_id   INTEGER   NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    status       TEXT      NOT NULL CHECK (status IN ('ONLINE', 'OFFLINE')),
    reason       TEXT,
    started_at   TIMESTAMP NOT NULL,
    ended_at     TIMESTAMP,
    last_seen_at TIMESTAMP
);
--bun:split
CREATE INDEX machine_status_intervals_machine_idx ON machine_status_intervals (machine_id, started_at);
--bun:split
CREATE TABLE agent_commands (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    machine_id   INTEGER   NOT NULL REFERENCES machines (id) ON DELETE CASCADE,
    kind         TEXT      NOT NULL,
    payload      TEXT      NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    delivered_at TIMESTAMP
);
--bun:split
CREATE INDEX agent_commands_pending_idx ON agent_commands (machine_id, id) WHERE delivered_at IS NULL;
