DROP INDEX agent_tokens_provider_name_key;
--bun:split
DROP INDEX machines_agent_token_id_idx;
--bun:split
ALTER TABLE machines DROP COLUMN agent_token_id;
--bun:split
ALTER TABLE machines DROP COLUMN last_heartbeat_at;
