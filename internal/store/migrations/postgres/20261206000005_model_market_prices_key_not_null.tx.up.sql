-- Issue 25, item 1 (TestSchemasAgreeWhenMigratedUp). SQLite's
-- model_market_prices.model_key took NULL and is rebuilt NOT NULL by this
-- version; here the primary key has always made it NOT NULL, so this says
-- so and changes nothing.
ALTER TABLE model_market_prices ALTER COLUMN model_key SET NOT NULL;
