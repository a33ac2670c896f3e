DROP TABLE deposit_transfers;
--bun:split
DROP TABLE deposits;
