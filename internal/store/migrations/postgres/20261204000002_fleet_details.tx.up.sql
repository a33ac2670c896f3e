-- Issue 11, points 9 and 11. An offline machine keeps the time of its last
-- heartbeat (written with the status transition, never per heartbeat);
-- a machine remembers the agent token it last registered with, so the
-- tokens list counts machines; an active token's name is unique per
-- provider, ignoring case.
ALTER TABLE machines ADD COLUMN last_heartbeat_at TIMESTAMPTZ;
--bun:split
-- No foreign key: tokens are revoked, never deleted, and a provider's
-- deletion removes its machines and tokens together.
ALTER TABLE machines ADD COLUMN agent_token_id BIGINT;
--bun:split
CREATE INDEX machines_agent_token_id_idx ON machines (agent_token_id);
--bun:split
-- Before this column, the transition to offline was the last contact the
-- server recorded: the end of the machine's latest online interval. For a
-- planned stop that end is the agent's going-offline message, its last
-- heartbeat exactly. For an unplanned one it is when the presence key
-- expired as the sweeper computed it (its sweep time less the grace
-- period): within one sweep interval after the last heartbeat, never
-- before it, the same "latest it can have been" the sweeper now records
-- when it did not see the last beat. Machines keep no last_seen_at; the
-- intervals' last_seen_at is compaction's checkpoint, written every
-- CompactEvery (10 minutes), so it can be that much older than the last
-- beat: the interval's end is the closer of the two.
UPDATE machines SET last_heartbeat_at = (
    SELECT MAX(msi.ended_at) FROM machine_status_intervals msi
    WHERE msi.machine_id = machines.id AND msi.status = 'ONLINE'
) WHERE status = 'OFFLINE';
--bun:split
UPDATE machines SET last_heartbeat_at = status_changed_at WHERE status = 'ONLINE';
--bun:split
-- Active tokens whose names differ only in case are renamed, all but the
-- oldest of each name, so the unique index can be built. The new name
-- holds the token's id and fits MaxAgentTokenName (64 characters: the
-- name is cut, and its trailing spaces trimmed, to leave room for the
-- suffix), and it can clash with no active name, case ignored:
--  * "<name> (<id>)", when no active token is named so (NOT EXISTS; on
--    SQLite the check may see rows this statement renamed already, which
--    only makes it stricter). Two such names never clash: read from its
--    end, the suffix gives the id back, and ids are distinct; lower()
--    leaves the suffix as it is.
--  * otherwise "<name> (#<id>)" followed by a no-break space (U+00A0):
--    a name the service stored cannot end in one (every version trimmed
--    names with strings.TrimSpace, which removes U+00A0), a name the
--    first form gave ends in ')', and two names of this form differ in
--    their ids as above. The space shows as nothing; only a provider who
--    named a token exactly as the first form would have gets this form.
UPDATE agent_tokens SET name = rtrim(substr(name, 1, 61 - length(CAST(id AS TEXT)))) || ' (' || id || ')'
WHERE revoked_at IS NULL AND EXISTS (
    SELECT 1 FROM agent_tokens o
    WHERE o.provider_id = agent_tokens.provider_id AND o.revoked_at IS NULL
      AND lower(o.name) = lower(agent_tokens.name) AND o.id < agent_tokens.id
) AND NOT EXISTS (
    SELECT 1 FROM agent_tokens c
    WHERE c.provider_id = agent_tokens.provider_id AND c.revoked_at IS NULL
      AND lower(c.name) = lower(rtrim(substr(agent_tokens.name, 1, 61 - length(CAST(agent_tokens.id AS TEXT)))) || ' (' || agent_tokens.id || ')')
);
--bun:split
UPDATE agent_tokens SET name = rtrim(substr(name, 1, 59 - length(CAST(id AS TEXT)))) || ' (#' || id || ')' || chr(160)
WHERE revoked_at IS NULL AND EXISTS (
    SELECT 1 FROM agent_tokens o
    WHERE o.provider_id = agent_tokens.provider_id AND o.revoked_at IS NULL
      AND lower(o.name) = lower(agent_tokens.name) AND o.id < agent_tokens.id
);
--bun:split
-- lower() follows the database's collation; the provider service compares
-- names with full Unicode case folding before inserting, and this index
-- stops two concurrent creations of the same name.
CREATE UNIQUE INDEX agent_tokens_provider_name_key ON agent_tokens (provider_id, lower(name)) WHERE revoked_at IS NULL;
