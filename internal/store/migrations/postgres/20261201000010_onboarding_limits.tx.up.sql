-- Issue 9 point 5: how often an application went back to review after a
-- request for more information (capped by onboarding.Config.MaxResubmissions),
-- and which notification told each admin about it (merged while unread).
ALTER TABLE provider_applications ADD COLUMN resubmissions INTEGER NOT NULL DEFAULT 0 CHECK (resubmissions >= 0);
--bun:split
-- An open application was resubmitted once per request for more information,
-- less the request it has yet to answer.
UPDATE provider_applications SET resubmissions = (
    SELECT count(*) FROM application_events ae
    WHERE ae.application_id = provider_applications.id AND ae.action = 'INFO_REQUESTED'
) - CASE WHEN status = 'INFO_REQUESTED' THEN 1 ELSE 0 END
WHERE status IN ('SUBMITTED', 'INFO_REQUESTED');
--bun:split
CREATE TABLE application_notices (
    application_id  BIGINT NOT NULL REFERENCES provider_applications (id) ON DELETE CASCADE,
    user_id         BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    notification_id BIGINT NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    PRIMARY KEY (application_id, user_id)
);
--bun:split
CREATE INDEX application_notices_notification_id_idx ON application_notices (notification_id);
