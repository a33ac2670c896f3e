-- Issue 24, point 1. A rental is billed for the time the platform itself
-- observed: it remembers the START_JOB command that carried its job (in
-- the same transaction as the rental, so the command's delivered_at is
-- the heartbeat that delivered it), and keeps the times its agent
-- reported as evidence beside the billed started_at and ended_at. A
-- stopping rental is billed no later than billable_until: the customer's
-- stop request, or for a stop the platform made (funds running out) the
-- request plus the stop's grace, which the balance still covers.
ALTER TABLE rentals ADD COLUMN start_command_id INTEGER;
--bun:split
ALTER TABLE rentals ADD COLUMN agent_started_at TIMESTAMP;
--bun:split
ALTER TABLE rentals ADD COLUMN agent_ended_at TIMESTAMP;
--bun:split
ALTER TABLE rentals ADD COLUMN billable_until TIMESTAMP;
