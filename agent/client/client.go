package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/clock"
)

// Defaults of Options.
const (
	// DefaultInterval is the heartbeat interval until the server says
	// otherwise.
	DefaultInterval = 10 * time.Second
	// DefaultRequestTimeout bounds one request.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultOfflineTimeout bounds the last heartbeat on shutdown, well
	// inside Docker's 10 s stop grace.
	DefaultOfflineTimeout = 5 * time.Second
)

// Bounds of the interval the server may set; anything outside is clamped.
const (
	MinInterval = time.Second
	MaxInterval = time.Hour
)

// maxResponseBytes bounds what is read of an answer.
const maxResponseBytes = 4 << 20

// Options configures a Client. Server, Token, MachineID, Detector and
// DataDir are required.
type Options struct {
	// Server is the server's base URL; GraphQL is at Server+"/graphql".
	Server string
	// Token is the agent token, sent as "Authorization: Bearer <token>".
	Token string
	// MachineID is the machine's persistent identity.
	MachineID string
	// Hostname and AgentVersion are reported at registration.
	Hostname     string
	AgentVersion string
	// Detector supplies the inventory and the telemetry.
	Detector gpu.Detector
	// Host reads the machine's CPU, memory and disk at each registration
	// (agent/host's Reader.Facts); the host is not reported when nil.
	Host func() *protocol.HostFacts
	// Handler carries out START_JOB, STOP_JOB and RUN_BENCHMARK; without
	// one, those commands are logged and dropped.
	Handler Handler
	// DataDir holds the heartbeat buffer (heartbeats.jsonl).
	DataDir string
	// BufferLimit bounds the buffer; DefaultBufferLimit when zero.
	BufferLimit int
	// HTTPClient sends the requests; by default one that refuses
	// redirects (a redirected POST would lose its body and its
	// Authorization header).
	HTTPClient *http.Client
	// RequestTimeout bounds each request; DefaultRequestTimeout when zero.
	RequestTimeout time.Duration
	// OfflineTimeout bounds the last heartbeat; DefaultOfflineTimeout when
	// zero.
	OfflineTimeout time.Duration
	// Backoff spaces retries; its zero value is the default (1 s base,
	// 60 s cap, full jitter).
	Backoff Backoff
	// Clock stamps heartbeats and schedules them; the system clock when
	// nil.
	Clock clock.Clock
	// Sleep waits d or until ctx ends (returning ctx's error); a timer
	// when nil. Tests pass one that advances a manual Clock instead.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives the client's log; nothing is logged when nil. The
	// client does not add the machine id to its records: a caller running
	// several machines adds it with Logger.With.
	Logger *slog.Logger
}

// Client talks to the server for one machine. Register and Heartbeat are
// single requests; Run is the agent's whole conversation and may be called
// once.
type Client struct {
	base      string // the server's base URL, without a trailing slash
	endpoint  string
	token     string
	machineID string
	hostname  string
	version   string
	detector  gpu.Detector
	host      func() *protocol.HostFacts
	handler   Handler
	http      *http.Client
	reqTO     time.Duration
	offlineTO time.Duration
	backoff   Backoff
	clock     clock.Clock
	sleep     func(context.Context, time.Duration) error
	logger    *slog.Logger
	spool     *spool
	started   atomic.Bool

	// Run's state; only Run's goroutine touches it.
	interval      time.Duration
	lastBeat      time.Time
	failures      int
	retryAt       time.Time
	needRegister  bool
	registered    map[string]bool // GPU UUIDs of the last registration
	history       *utilizationHistory
	dispatch      *dispatcher
	lastSampleErr string
}

// New checks opts and opens the heartbeat buffer in opts.DataDir (creating
// the directory). Close releases it.
func New(opts Options) (*Client, error) {
	var missing []string
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"Server", opts.Server != ""}, {"Token", opts.Token != ""}, {"MachineID", opts.MachineID != ""},
		{"Detector", opts.Detector != nil}, {"DataDir", opts.DataDir != ""},
	} {
		if !f.ok {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("client: options missing: %s", strings.Join(missing, ", "))
	}
	u, err := url.Parse(strings.TrimRight(opts.Server, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("client: Server must be an http(s) URL with a host")
	}
	c := &Client{
		base:      u.String(),
		endpoint:  u.String() + "/graphql",
		token:     opts.Token,
		machineID: opts.MachineID,
		hostname:  opts.Hostname,
		version:   opts.AgentVersion,
		detector:  opts.Detector,
		host:      opts.Host,
		handler:   opts.Handler,
		http:      opts.HTTPClient,
		reqTO:     opts.RequestTimeout,
		offlineTO: opts.OfflineTimeout,
		backoff:   opts.Backoff,
		clock:     opts.Clock,
		sleep:     opts.Sleep,
		logger:    opts.Logger,
		interval:  DefaultInterval,
		history:   newUtilizationHistory(),
	}
	if c.http == nil {
		c.http = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if c.reqTO <= 0 {
		c.reqTO = DefaultRequestTimeout
	}
	if c.offlineTO <= 0 {
		c.offlineTO = DefaultOfflineTimeout
	}
	if c.clock == nil {
		c.clock = clock.Real{}
	}
	if c.sleep == nil {
		c.sleep = sleepTimer
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	c.spool, err = openSpool(opts.DataDir, opts.BufferLimit)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Close releases the heartbeat buffer; what it holds stays on disk for the
// next run.
func (c *Client) Close() error { return c.spool.Close() }

// Buffered is the number of heartbeats waiting in the buffer.
func (c *Client) Buffered() int { return c.spool.Len() }

// Registration is registerMachine's answer.
type Registration struct {
	// ID is the server's id of the machine.
	ID string
	// MachineID echoes the agent's machine id.
	MachineID string
	// Status is the machine's status as the server sees it.
	Status string
	// Interval is how often the server wants heartbeats.
	Interval time.Duration
	// GPUUUIDs are the GPUs registered, in index order.
	GPUUUIDs []string
}

// Register sends registerMachine with the detector's inventory. A
// detector that reads some GPUs but not others registers those it read
// (and the failure is logged); one that reads none fails.
func (c *Client) Register(ctx context.Context) (*Registration, error) {
	devices, err := c.detector.Inventory(ctx)
	if err != nil {
		if len(devices) == 0 {
			return nil, fmt.Errorf("%w: %w", errDetector, err)
		}
		c.logger.Warn("client: some GPUs could not be read; registering the others", "err", err)
	}
	in := protocol.RegisterMachineInput{MachineID: c.machineID, Hostname: c.hostname, AgentVersion: c.version, Gpus: InventoryInput(devices)}
	if c.host != nil {
		in.Host = c.host()
	}
	var out struct {
		RegisterMachine *protocol.RegisterMachineAnswer `json:"registerMachine"`
	}
	if err := c.do(ctx, "registerMachine", protocol.RegisterMachineOperation, protocol.RegisterMachineMutation, in, &out); err != nil {
		return nil, err
	}
	p := out.RegisterMachine
	if p == nil {
		return nil, &Error{Op: "registerMachine", Message: "the answer has no registerMachine payload", StatusCode: http.StatusOK, Err: errors.New("empty payload")}
	}
	if len(p.UserErrors) > 0 {
		return nil, &RejectedError{Op: "registerMachine", UserErrors: c.redactUserErrors(p.UserErrors)}
	}
	reg := &Registration{MachineID: c.machineID, Interval: secondsInterval(p.HeartbeatIntervalSeconds)}
	for _, g := range in.Gpus {
		reg.GPUUUIDs = append(reg.GPUUUIDs, g.UUID)
	}
	if p.Machine != nil {
		reg.ID, reg.Status = p.Machine.ID, string(p.Machine.Status)
		if p.Machine.MachineID != "" {
			reg.MachineID = p.Machine.MachineID
		}
	}
	return reg, nil
}

// HeartbeatResult is heartbeat's answer.
type HeartbeatResult struct {
	// Accepted is the server's verdict on the heartbeat.
	Accepted bool
	// Status is the machine's status after it.
	Status string
	// Interval is how often the server wants heartbeats from now on; zero
	// when it did not say.
	Interval time.Duration
	// Commands are the agent's pending commands.
	Commands []Command
}

// Heartbeat sends one heartbeat mutation.
func (c *Client) Heartbeat(ctx context.Context, in protocol.HeartbeatInput) (*HeartbeatResult, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("client: encoding a heartbeat: %w", err)
	}
	return c.heartbeat(ctx, raw)
}

// heartbeat sends an encoded HeartbeatInput, as the buffer stores it.
func (c *Client) heartbeat(ctx context.Context, input json.RawMessage) (*HeartbeatResult, error) {
	var out struct {
		Heartbeat *protocol.HeartbeatPayload `json:"heartbeat"`
	}
	if err := c.do(ctx, "heartbeat", protocol.HeartbeatOperation, protocol.HeartbeatMutation, input, &out); err != nil {
		return nil, err
	}
	p := out.Heartbeat
	if p == nil {
		return nil, &Error{Op: "heartbeat", Message: "the answer has no heartbeat payload", StatusCode: http.StatusOK, Err: errors.New("empty payload")}
	}
	if len(p.UserErrors) > 0 {
		return nil, &RejectedError{Op: "heartbeat", UserErrors: c.redactUserErrors(p.UserErrors)}
	}
	res := &HeartbeatResult{Accepted: p.Accepted, Interval: secondsInterval(p.IntervalSeconds)}
	if p.Status != nil {
		res.Status = string(*p.Status)
	}
	for _, w := range p.Commands {
		payload := json.RawMessage(w.Payload)
		if strings.TrimSpace(w.Payload) == "" {
			payload = json.RawMessage("{}")
		}
		if !json.Valid(payload) {
			c.logger.Error("client: command with a payload that is not JSON ignored", "command_id", w.ID, "kind", w.Kind)
			continue
		}
		res.Commands = append(res.Commands, Command{ID: w.ID, Kind: w.Kind, Payload: payload})
	}
	return res, nil
}

// secondsInterval turns the server's seconds into an interval, 0 meaning
// "not said".
func secondsInterval(s int) time.Duration {
	if s <= 0 {
		return 0
	}
	return min(max(time.Duration(s)*time.Second, MinInterval), MaxInterval)
}

// gqlRequest is a GraphQL-over-HTTP POST body.
type gqlRequest struct {
	OperationName string         `json:"operationName"`
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables"`
}

// gqlResponse is a GraphQL-over-HTTP answer.
type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string `json:"message"`
		Extensions struct {
			Code string `json:"code"`
			// RetryAfterSeconds comes with UNAVAILABLE.
			RetryAfterSeconds int `json:"retryAfterSeconds"`
		} `json:"extensions"`
	} `json:"errors"`
}

// do posts one operation and decodes its data into out. Everything but an
// answer with data and no errors becomes an *Error.
func (c *Client) do(ctx context.Context, op, name, query string, input any, out any) error {
	body, err := json.Marshal(gqlRequest{OperationName: name, Query: query, Variables: map[string]any{"input": input}})
	if err != nil {
		return fmt.Errorf("client: %s: encoding the request: %w", op, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.reqTO)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("client: %s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/graphql-response+json, application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("User-Agent", "gpunex-agent/"+c.version)
	resp, err := c.http.Do(req)
	if err != nil {
		return &Error{Op: op, Err: err} // the URL has no credentials and the token is only in a header
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return &Error{Op: op, StatusCode: resp.StatusCode, Err: err}
	}

	e := &Error{Op: op, StatusCode: resp.StatusCode, RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), c.clock.Now())}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		e.Code = CodeUnauthenticated
	case http.StatusForbidden:
		e.Code = CodeForbidden
	case http.StatusTooManyRequests:
		e.Code = CodeRateLimited
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		e.Message = fmt.Sprintf("the server redirects to %s: set --server (GPUNEX_SERVER) to the address it redirects to", resp.Header.Get("Location"))
		return e
	}

	var gr gqlResponse
	if !isJSON(resp.Header.Get("Content-Type")) || json.Unmarshal(data, &gr) != nil {
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			e.Err = errors.New("the answer is not GraphQL JSON; is --server the GPUnex server?")
			return e
		}
		e.Message = http.StatusText(resp.StatusCode)
		return e
	}
	if len(gr.Errors) > 0 {
		msgs := make([]string, len(gr.Errors))
		for i, ge := range gr.Errors {
			msgs[i] = c.redact(ge.Message)
			if e.Code == "" || (i == 0 && ge.Extensions.Code != "") {
				e.Code = ge.Extensions.Code
			}
			if s := ge.Extensions.RetryAfterSeconds; s > 0 && e.RetryAfter == 0 {
				e.RetryAfter = min(time.Duration(s)*time.Second, MaxInterval)
			}
		}
		e.Message = strings.Join(msgs, "; ")
		return e
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		e.Message = http.StatusText(resp.StatusCode)
		return e
	}
	if len(gr.Data) == 0 || string(gr.Data) == "null" {
		e.Err = errors.New("the answer has neither data nor errors")
		return e
	}
	if err := json.Unmarshal(gr.Data, out); err != nil {
		e.Err = fmt.Errorf("decoding the data: %w", err)
		return e
	}
	return nil
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || mt == "application/graphql-response+json")
}

// parseRetryAfter reads Retry-After in seconds or as an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return min(time.Duration(s)*time.Second, MaxInterval)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), MaxInterval)
	}
	return 0
}

// redact removes the token from text that came from outside.
func (c *Client) redact(s string) string {
	if c.token == "" {
		return s
	}
	return strings.ReplaceAll(s, c.token, "[redacted]")
}

func (c *Client) redactUserErrors(in []protocol.UserError) []protocol.UserError {
	out := make([]protocol.UserError, len(in))
	for i, u := range in {
		out[i] = protocol.UserError{Field: u.Field, Message: c.redact(u.Message), Code: u.Code}
	}
	return out
}

// sleepTimer is the default Sleep.
func sleepTimer(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
