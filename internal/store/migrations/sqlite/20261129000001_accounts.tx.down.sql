DROP TABLE notifications;
--bun:split
DROP TABLE sessions;
--bun:split
DROP TABLE user_roles;
--bun:split
DROP TABLE users;
