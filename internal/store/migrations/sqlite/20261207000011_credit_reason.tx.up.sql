-- Issue 26. An admin's credit of a bank transfer records why (the reason
-- the admin gives) and who made it, on its ledger transaction; both are
-- NULL on every other posting.
ALTER TABLE ledger_transactions ADD COLUMN note TEXT;
--bun:split
ALTER TABLE ledger_transactions ADD COLUMN actor_id INTEGER REFERENCES users (id);
