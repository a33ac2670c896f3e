-- Each submission's answers, kept on its history step (SUBMITTED,
-- RESUBMITTED) as JSON, so reviewers see what a resubmission changed.
ALTER TABLE application_events ADD COLUMN answers TEXT;
