DROP TABLE earnings_provider_hours;
--bun:split
DROP TABLE earnings_gpu_hours;
--bun:split
DROP TABLE rental_meters;
--bun:split
DROP TABLE ledger_entries;
--bun:split
DROP TABLE ledger_transactions;
--bun:split
DROP TABLE ledger_accounts;
--bun:split
ALTER TABLE rentals DROP COLUMN fee_bps;
