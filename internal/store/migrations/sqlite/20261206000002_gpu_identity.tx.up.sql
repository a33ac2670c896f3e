-- Issue 24, point 4. A GPU UUID is one GPU across the platform: at most
-- one machine has it (not removed) at a time. The fleet checks before it
-- registers a GPU; this index settles two registrations racing for one
-- UUID. A card that moves is removed from its old machine (the old
-- machine re-registers without it) before it registers on the new one.
--
-- A UUID registered on more than one machine before this index keeps its
-- oldest row (the first to claim it) and leaves the others, each removed
-- now with a REMOVED inventory change, so the card is listed once.
INSERT INTO machine_inventory_changes (machine_id, at, change, gpu_uuid, detail)
SELECT mg.machine_id, strftime('%Y-%m-%d %H:%M:%f+00:00', 'now'), 'REMOVED', mg.uuid, mg.name
FROM machine_gpus mg
WHERE mg.removed_at IS NULL AND EXISTS (
    SELECT 1 FROM machine_gpus o WHERE o.uuid = mg.uuid AND o.removed_at IS NULL AND o.id < mg.id
);
--bun:split
UPDATE machine_gpus SET removed_at = strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')
WHERE removed_at IS NULL AND EXISTS (
    SELECT 1 FROM machine_gpus o WHERE o.uuid = machine_gpus.uuid AND o.removed_at IS NULL AND o.id < machine_gpus.id
);
--bun:split
CREATE UNIQUE INDEX machine_gpus_live_uuid_key ON machine_gpus (uuid) WHERE removed_at IS NULL;
--bun:split
-- A machine is simulated when any of its GPUs is (it was: when all were),
-- so a machine mixing real and simulated GPUs is never listed outside the
-- demo world.
UPDATE machines SET simulated = EXISTS (
    SELECT 1 FROM machine_gpus mg WHERE mg.machine_id = machines.id AND mg.removed_at IS NULL AND mg.simulated
);
--bun:split
-- A registration refused for what its agent claimed (a GPU registered
-- elsewhere, simulated hardware on a production server), once per
-- provider, machine id, reason and GPU: the admins' evidence, and what
-- keeps a retrying agent from notifying them again. gpu_uuid is '' for a
-- refusal of the whole machine.
CREATE TABLE registration_refusals (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id       INTEGER   NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    machine_uid       TEXT      NOT NULL,
    hostname          TEXT      NOT NULL,
    reason            TEXT      NOT NULL CHECK (reason IN ('GPU_TAKEN', 'SIMULATED')),
    gpu_uuid          TEXT      NOT NULL,
    holder_machine_id INTEGER   REFERENCES machines (id) ON DELETE SET NULL,
    at                TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX registration_refusals_key ON registration_refusals (provider_id, machine_uid, reason, gpu_uuid);
