-- Issue 11, points 9 and 11. An offline machine keeps the time of its last
-- heartbeat (written with the status transition, never per heartbeat);
-- a machine remembers the agent token it last registered with, so the
-- tokens list counts machines; an active token's name is unique per
-- provider, ignoring case.
ALTER TABLE machines ADD COLUMN last_heartbeat_at TIMESTAMP;
--bun:split
-- No foreign key: tokens are revoked, never deleted, and a provider's
-- deletion removes its machines and tokens together.
ALTER TABLE machines ADD COLUMN agent_token_id INTEGER;
--bun:split
CREATE INDEX machines_agent_token_id_idx ON machines (agent_token_id);
--bun:split
-- Before this column, the transition to offline was the last contact the
-- server recorded: the end of the machine's latest online interval.
UPDATE machines SET last_heartbeat_at = (
    SELECT MAX(msi.ended_at) FROM machine_status_intervals msi
    WHERE msi.machine_id = machines.id AND msi.status = 'ONLINE'
) WHERE status = 'OFFLINE';
--bun:split
UPDATE machines SET last_heartbeat_at = status_changed_at WHERE status = 'ONLINE';
--bun:split
-- Active tokens whose names differ only in case get their id appended,
-- all but the oldest, so the unique index can be built.
UPDATE agent_tokens SET name = name || ' (' || id || ')'
WHERE revoked_at IS NULL AND EXISTS (
    SELECT 1 FROM agent_tokens o
    WHERE o.provider_id = agent_tokens.provider_id AND o.revoked_at IS NULL
      AND lower(o.name) = lower(agent_tokens.name) AND o.id < agent_tokens.id
);
--bun:split
-- SQLite's lower() folds ASCII only; the provider service compares names
-- with full Unicode case folding before inserting, and this index stops
-- two concurrent creations of the same (ASCII-cased) name.
CREATE UNIQUE INDEX agent_tokens_provider_name_key ON agent_tokens (provider_id, lower(name)) WHERE revoked_at IS NULL;
