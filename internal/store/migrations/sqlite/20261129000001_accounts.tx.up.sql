CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    email         TEXT      NOT NULL,
    name          TEXT      NOT NULL,
    password_hash TEXT      NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX users_email_key ON users (email);
--bun:split
CREATE TABLE user_roles (
    user_id    INTEGER   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT      NOT NULL CHECK (role IN ('CUSTOMER', 'PROVIDER', 'ADMIN')),
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, role)
);
--bun:split
CREATE TABLE sessions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      INTEGER   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash   TEXT      NOT NULL,
    kind         TEXT      NOT NULL CHECK (kind IN ('cookie', 'bearer')),
    created_at   TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP NOT NULL,
    expires_at   TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX sessions_token_hash_key ON sessions (token_hash);
--bun:split
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
--bun:split
CREATE TABLE notifications (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT      NOT NULL,
    title      TEXT      NOT NULL,
    body       TEXT      NOT NULL,
    params     TEXT      NOT NULL DEFAULT '{}',
    created_at TIMESTAMP NOT NULL,
    read_at    TIMESTAMP
);
--bun:split
CREATE INDEX notifications_user_id_id_idx ON notifications (user_id, id);
