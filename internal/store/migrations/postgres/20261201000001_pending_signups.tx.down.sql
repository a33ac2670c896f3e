DROP TABLE pending_signups;
