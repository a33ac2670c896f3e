ALTER TABLE ledger_transactions DROP COLUMN actor_id;
--bun:split
ALTER TABLE ledger_transactions DROP COLUMN note;
