-- Issue 25, item 1 (TestSchemasAgreeWhenMigratedUp). A TEXT PRIMARY KEY
-- takes NULL in SQLite unless it says NOT NULL, which a PostgreSQL
-- primary key never does: model_market_prices.model_key was nullable here
-- only. SQLite cannot add NOT NULL to a column, so the table is rebuilt
-- as the PostgreSQL tree has it. No row with a NULL key can exist (the
-- key is a Go string, and the table is the market's cache, deleted and
-- written whole at each refresh); the copy leaves any out all the same.
CREATE TABLE model_market_prices_new (
    model_key     TEXT      NOT NULL PRIMARY KEY,
    median_micros BIGINT    NOT NULL,
    computed_at   TIMESTAMP NOT NULL
);
--bun:split
INSERT INTO model_market_prices_new (model_key, median_micros, computed_at)
SELECT model_key, median_micros, computed_at FROM model_market_prices WHERE model_key IS NOT NULL;
--bun:split
DROP TABLE model_market_prices;
--bun:split
ALTER TABLE model_market_prices_new RENAME TO model_market_prices;
