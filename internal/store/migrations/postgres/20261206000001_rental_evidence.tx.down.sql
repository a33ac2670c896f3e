ALTER TABLE rentals DROP COLUMN billable_until;
--bun:split
ALTER TABLE rentals DROP COLUMN agent_ended_at;
--bun:split
ALTER TABLE rentals DROP COLUMN agent_started_at;
--bun:split
ALTER TABLE rentals DROP COLUMN start_command_id;
