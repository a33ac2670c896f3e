DROP TABLE model_market_prices;
--bun:split
DROP TABLE machine_market_stats;
--bun:split
DROP TABLE provider_market_profiles;
--bun:split
DROP TABLE gpu_allocations;
--bun:split
DROP TABLE rental_gpus;
--bun:split
DROP TABLE rentals;
