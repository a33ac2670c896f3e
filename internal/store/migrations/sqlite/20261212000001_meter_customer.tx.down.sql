DROP INDEX rental_meters_open_customer_idx;
--bun:split
ALTER TABLE rental_meters DROP COLUMN customer_id;
