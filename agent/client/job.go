package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gpunex/gpunex/agent/protocol"
)

// reportAttempts bounds the tries of one job report: the watcher sends a
// newer one soon anyway, and tries a final one again itself.
const reportAttempts = 3

// ReportJobStatus sends one job report with reportJobStatus. Failures that
// may pass (no answer, 5xx, RATE_LIMITED) are retried a few times with the
// client's backoff (or the server's Retry-After); a refusal of the input
// (userErrors) is not, and comes back as a *RejectedError with the answer.
// The answer's Stop asks the agent to end the job.
func (c *Client) ReportJobStatus(ctx context.Context, in protocol.ReportJobStatusInput) (*protocol.ReportJobStatusAnswer, error) {
	const op = "reportJobStatus"
	var lastErr error
	for attempt := 1; attempt <= reportAttempts; attempt++ {
		var out struct {
			ReportJobStatus *protocol.ReportJobStatusAnswer `json:"reportJobStatus"`
		}
		err := c.do(ctx, op, protocol.ReportJobStatusOperation, protocol.ReportJobStatusMutation, in, &out)
		if err == nil {
			a := out.ReportJobStatus
			if a == nil {
				return nil, &Error{Op: op, Message: "the answer has no reportJobStatus payload", StatusCode: http.StatusOK, Err: errors.New("empty payload")}
			}
			if len(a.UserErrors) == 0 {
				return a, nil
			}
			a.UserErrors = c.redactUserErrors(a.UserErrors)
			return a, &RejectedError{Op: op, UserErrors: a.UserErrors}
		}
		lastErr = err
		var e *Error
		if !errors.As(err, &e) || !e.Retryable() || attempt == reportAttempts {
			return nil, err
		}
		wait := max(e.RetryAfter, c.backoff.Delay(attempt))
		c.logger.Warn("client: job report not delivered; retrying", "job_id", in.JobID, "state", in.State, "attempt", attempt, "wait", wait, "err", err)
		if err := c.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("client: %s: %w (last try: %w)", op, err, lastErr)
		}
	}
	return nil, lastErr
}
