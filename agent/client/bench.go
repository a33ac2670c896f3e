package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gpunex/gpunex/agent/protocol"
)

// submitAttempts bounds the tries of one benchmark submission: a result
// is worth a few retries (the run took a minute of every GPU), not a queue
// of its own like heartbeats.
const submitAttempts = 4

// CodeDuplicate is the userErrors code of a result whose run id the server
// already stored.
const CodeDuplicate = "DUPLICATE"

// SubmitBenchmark sends a run's result with submitBenchmarkResult. Failures
// that may pass (no answer, 5xx, RATE_LIMITED) are retried a few times
// with the client's backoff (or the server's Retry-After); a refusal of
// the input (userErrors) is not, and comes back as a *RejectedError with
// the answer. A DUPLICATE refusal of a retry means an earlier try was
// stored though its answer was lost, and counts as accepted.
func (c *Client) SubmitBenchmark(ctx context.Context, in protocol.BenchmarkResultInput) (*protocol.SubmitBenchmarkResultAnswer, error) {
	const op = "submitBenchmarkResult"
	var lastErr error
	for attempt := 1; attempt <= submitAttempts; attempt++ {
		var out struct {
			SubmitBenchmarkResult *protocol.SubmitBenchmarkResultAnswer `json:"submitBenchmarkResult"`
		}
		err := c.do(ctx, op, protocol.SubmitBenchmarkResultOperation, protocol.SubmitBenchmarkResultMutation, in, &out)
		if err == nil {
			a := out.SubmitBenchmarkResult
			if a == nil {
				return nil, &Error{Op: op, Message: "the answer has no submitBenchmarkResult payload", StatusCode: http.StatusOK, Err: errors.New("empty payload")}
			}
			if len(a.UserErrors) == 0 {
				return a, nil
			}
			if attempt > 1 && allDuplicate(a.UserErrors) {
				c.logger.Info("client: benchmark result already stored by an earlier try", "run_id", in.RunID)
				return &protocol.SubmitBenchmarkResultAnswer{Accepted: true}, nil
			}
			a.UserErrors = c.redactUserErrors(a.UserErrors)
			return a, &RejectedError{Op: op, UserErrors: a.UserErrors}
		}
		lastErr = err
		var e *Error
		if !errors.As(err, &e) || !e.Retryable() || attempt == submitAttempts {
			return nil, err
		}
		wait := max(e.RetryAfter, c.backoff.Delay(attempt))
		c.logger.Warn("client: benchmark result not delivered; retrying", "run_id", in.RunID, "attempt", attempt, "wait", wait, "err", err)
		if err := c.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("client: %s: %w (last try: %w)", op, err, lastErr)
		}
	}
	return nil, lastErr
}

func allDuplicate(ues []protocol.UserError) bool {
	for _, u := range ues {
		if u.Code != CodeDuplicate {
			return false
		}
	}
	return true
}

// NewPlatformRequest builds a request to path (with its query, e.g.
// protocol.BenchDownloadPath+"?bytes=1048576") on the server, carrying the
// agent token and the machine id (protocol.BenchMachineHeader). It is how
// the network benchmark reaches the platform without ever holding the
// token.
func (c *Client) NewPlatformRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("client: platform path %q must start with /", path)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set(protocol.BenchMachineHeader, c.machineID)
	req.Header.Set("User-Agent", "gpunex-agent/"+c.version)
	return req, nil
}

// DoPlatform sends a request NewPlatformRequest built, with the client's
// HTTP client (which follows no redirect: a redirect would carry the token
// elsewhere). Its errors never contain the token: it travels in a header
// only.
func (c *Client) DoPlatform(req *http.Request) (*http.Response, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		if msg := err.Error(); c.redact(msg) != msg {
			return nil, errors.New(c.redact(msg)) // never seen; the token is not in a URL
		}
		return nil, err
	}
	return resp, nil
}

// ReportBenchmarkProgress tells the platform one part of a run finished,
// once: progress is worth no retries (the result that follows carries
// everything), so a failure comes back for the caller to log.
func (c *Client) ReportBenchmarkProgress(ctx context.Context, in protocol.BenchmarkProgressInput) error {
	const op = "reportBenchmarkProgress"
	var out struct {
		ReportBenchmarkProgress *protocol.ReportBenchmarkProgressAnswer `json:"reportBenchmarkProgress"`
	}
	if err := c.do(ctx, op, protocol.ReportBenchmarkProgressOperation, protocol.ReportBenchmarkProgressMutation, in, &out); err != nil {
		return err
	}
	a := out.ReportBenchmarkProgress
	if a == nil {
		return &Error{Op: op, Message: "the answer has no reportBenchmarkProgress payload", StatusCode: http.StatusOK, Err: errors.New("empty payload")}
	}
	if len(a.UserErrors) > 0 {
		return &RejectedError{Op: op, UserErrors: c.redactUserErrors(a.UserErrors)}
	}
	return nil
}
