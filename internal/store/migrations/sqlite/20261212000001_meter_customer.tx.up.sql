-- Issue 27 point 6. A meter carries its rental's customer, so a metering
-- tick's workers each take the open meters of their share of the
-- customers by the meters' own index, without joining every rental first.
ALTER TABLE rental_meters ADD COLUMN customer_id INTEGER NOT NULL DEFAULT 0;
--bun:split
UPDATE rental_meters SET customer_id = (SELECT r.customer_id FROM rentals r WHERE r.id = rental_meters.rental_id);
--bun:split
CREATE INDEX rental_meters_open_customer_idx ON rental_meters (customer_id, rental_id) WHERE NOT closed;
