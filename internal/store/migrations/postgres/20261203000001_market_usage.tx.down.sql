DROP TABLE provider_usage;
--bun:split
DROP TABLE market_usage;
--bun:split
DROP TABLE model_supply;
