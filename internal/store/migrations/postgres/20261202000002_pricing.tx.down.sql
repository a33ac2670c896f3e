DROP TABLE maintenance_windows;
--bun:split
DROP TABLE provider_schedules;
--bun:split
DROP TABLE gpu_price_changes;
--bun:split
DROP TABLE gpu_prices;
