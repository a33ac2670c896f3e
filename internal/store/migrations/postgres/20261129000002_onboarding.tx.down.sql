DROP TABLE agent_tokens;
--bun:split
DROP TABLE providers;
--bun:split
DROP TABLE application_events;
--bun:split
DROP TABLE application_gpus;
--bun:split
DROP TABLE provider_applications;
