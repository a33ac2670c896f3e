DROP TABLE payouts;
--bun:split
DROP TABLE payout_methods;
