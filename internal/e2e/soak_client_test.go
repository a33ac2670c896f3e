package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// gql is one GraphQL client of the soak (a provider, a customer, the
// admin): it never fails the test from the goroutine it runs on; the
// caller decides what an error means.
type gql struct {
	url, token, forwardedFor string
	http                     *http.Client
}

// gqlAnswer is what one request brought back.
type gqlAnswer struct {
	Status int
	Data   json.RawMessage
	Codes  []string
	Err    error // the transport's, or an undecodable body
}

func (a gqlAnswer) ok() bool { return a.Err == nil && a.Status == http.StatusOK && len(a.Codes) == 0 }

func (a gqlAnswer) String() string {
	if a.Err != nil {
		return a.Err.Error()
	}
	return fmt.Sprintf("HTTP %d %v %s", a.Status, a.Codes, a.Data)
}

func (c *gql) do(ctx context.Context, query string, vars map[string]any) gqlAnswer {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/graphql", bytes.NewReader(body))
	if err != nil {
		return gqlAnswer{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", c.forwardedFor)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return gqlAnswer{Err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return gqlAnswer{Status: res.StatusCode, Err: err}
	}
	var out struct {
		Data   json.RawMessage
		Errors []struct {
			Message    string
			Extensions struct{ Code string }
		}
	}
	a := gqlAnswer{Status: res.StatusCode}
	if err := json.Unmarshal(b, &out); err != nil {
		a.Err = fmt.Errorf("HTTP %d: %s", res.StatusCode, b)
		return a
	}
	a.Data = out.Data
	for _, e := range out.Errors {
		a.Codes = append(a.Codes, e.Extensions.Code)
	}
	return a
}

// into decodes the answer's data into v.
func (a gqlAnswer) into(v any) error {
	if !a.ok() {
		return fmt.Errorf("not answered: %s", a)
	}
	return json.Unmarshal(a.Data, v)
}

// outcomes counts what clients were answered, by kind: "ok", an error
// code, "HTTP 502", or "transport" (refused, reset).
type outcomes struct {
	mu sync.Mutex
	n  map[string]int
}

func (o *outcomes) add(kind string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == nil {
		o.n = map[string]int{}
	}
	o.n[kind]++
}

func (o *outcomes) snapshot() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[string]int, len(o.n))
	for k, v := range o.n {
		out[k] = v
	}
	return out
}

// outcomeOf names an answer's kind.
func outcomeOf(a gqlAnswer) string {
	switch {
	case a.Err != nil && a.Status == 0:
		return "transport"
	case len(a.Codes) > 0:
		return a.Codes[0]
	case a.Status != http.StatusOK:
		return fmt.Sprintf("HTTP %d", a.Status)
	}
	return "ok"
}

// beat is one agent request as the agents' transport saw it.
type beat struct {
	at      time.Time
	latency time.Duration
	machine int
	outcome string
}

// agentWire is the transport of every simulated agent: it forwards the
// request and writes down, for each heartbeat, when it went, how long it
// took and what came back (ok, the error code, or the transport's
// failure), so the report has the latency and every outcome the agents
// saw.
type agentWire struct {
	base http.RoundTripper
	mu   sync.Mutex
	log  []beat
	// lastOK is when each machine's latest accepted heartbeat went, by
	// its number (soak-m<n>); machines is how many there are.
	lastOK   map[int]time.Time
	machines int
	// other counts the agents' other requests (registration, job
	// reports, benchmarks) by outcome.
	other outcomes
}

// allOKSince reports whether every machine had a heartbeat sent after at
// accepted.
func (w *agentWire) allOKSince(at time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for n := range w.machines {
		if !w.lastOK[n].After(at) {
			return false
		}
	}
	return true
}

// notOKSince lists the machines without a heartbeat sent after at and
// accepted, with their latest heartbeat's outcome.
func (w *agentWire) notOKSince(at time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for n := range w.machines {
		if !w.lastOK[n].After(at) {
			last := "none"
			for i := len(w.log) - 1; i >= 0; i-- {
				if w.log[i].machine == n {
					last = fmt.Sprintf("%s at %s", w.log[i].outcome, w.log[i].at.Format("15:04:05.000"))
					break
				}
			}
			out = append(out, fmt.Sprintf("soak-m%05d (last heartbeat %s)", n, last))
		}
	}
	return out
}

var (
	heartbeatOp = []byte("mutation Heartbeat(")
	codeField   = regexp.MustCompile(`"code":"([A-Z_]+)"`)
	machineNum  = regexp.MustCompile(`"machineId":"soak-m(\d+)"`)
)

func (w *agentWire) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	start := time.Now()
	res, err := w.base.RoundTrip(req)
	outcome := "ok"
	if err != nil {
		outcome = "transport"
	} else {
		b, rerr := io.ReadAll(res.Body)
		_ = res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(b))
		switch m := codeField.FindSubmatch(b); {
		case rerr != nil:
			outcome = "transport"
		case m != nil:
			outcome = string(m[1])
		case res.StatusCode != http.StatusOK:
			outcome = fmt.Sprintf("HTTP %d", res.StatusCode)
		}
	}
	latency := time.Since(start)
	if !bytes.Contains(body, heartbeatOp) {
		w.other.add(outcome)
		return res, err
	}
	n := -1
	if m := machineNum.FindSubmatch(body); m != nil {
		if v, err := strconv.Atoi(string(m[1])); err == nil {
			n = v
		}
	}
	w.mu.Lock()
	w.log = append(w.log, beat{at: start, latency: latency, machine: n, outcome: outcome})
	if outcome == "ok" {
		if w.lastOK == nil {
			w.lastOK = map[int]time.Time{}
		}
		w.lastOK[n] = start
	}
	w.mu.Unlock()
	return res, err
}

// around tells what machine n's heartbeats did about at: when the last
// ones before it went (relative to at), how long each took and how it
// was answered, and when the next went; what a machine marked offline
// at at was doing.
func (w *agentWire) around(n int, at time.Time) string {
	var before []beat
	var next *beat
	for _, b := range w.beats() {
		if b.machine != n {
			continue
		}
		if b.at.Before(at) {
			before = append(before, b)
		} else if next == nil {
			next = &b
		}
	}
	var parts []string
	for _, b := range before[max(0, len(before)-3):] {
		parts = append(parts, fmt.Sprintf("%+.1fs %s in %.1fs", b.at.Sub(at).Seconds(), b.outcome, b.latency.Seconds()))
	}
	if next != nil {
		parts = append(parts, fmt.Sprintf("next %+.1fs %s", next.at.Sub(at).Seconds(), next.outcome))
	}
	if len(before) == 0 {
		parts = append([]string{"no heartbeat before"}, parts...)
	}
	return strings.Join(parts, ", ")
}

func (w *agentWire) beats() []beat {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.log)
}

// percentile is the p-th percentile (0–100) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// dashboard is one provider's Overview as the SPA holds it: a
// graphql-transport-ws socket following machineStatusChanged, which
// reconnects (and so resynchronises from the current state the
// subscription opens with) whenever its socket ends, and keeps each
// machine's last status.
type dashboard struct {
	wsURL, token, forwardedFor string

	mu         sync.Mutex
	status     map[string]string
	connected  bool
	events     int
	reconnects int
	// gaps are the times the socket was down (from its end to the next
	// connection_ack).
	downSince time.Time
	gaps      []time.Duration
	// ended counts why its sockets ended or were never subscribed, by
	// kind ("dial: …", "connection_init answered …", "read: …").
	ended *outcomes
}

const dashboardSubscription = `subscription { machineStatusChanged { initial kind machine { machineId status } } }`

// run follows the subscription until ctx ends.
func (d *dashboard) run(ctx context.Context) {
	for ctx.Err() == nil {
		d.follow(ctx)
		d.mu.Lock()
		d.connected = false
		if d.downSince.IsZero() {
			d.downSince = time.Now()
		}
		d.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (d *dashboard) follow(ctx context.Context) {
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 10 * time.Second}
	header := http.Header{}
	if d.forwardedFor != "" {
		header.Set("X-Forwarded-For", d.forwardedFor)
	}
	conn, resp, err := dialer.DialContext(ctx, d.wsURL, header)
	if err != nil {
		if resp != nil {
			d.ended.add("dial: HTTP " + resp.Status)
		} else {
			d.ended.add("dial: " + errorKind(err))
		}
		return
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	send := func(v any) error { return conn.WriteJSON(v) }
	if err := send(map[string]any{"type": "connection_init", "payload": map[string]any{"authorization": "Bearer " + d.token}}); err != nil {
		d.ended.add("connection_init: " + errorKind(err))
		return
	}
	var m struct {
		Type    string
		Payload json.RawMessage
	}
	if err := conn.ReadJSON(&m); err != nil {
		d.ended.add("connection_init answered: " + errorKind(err))
		return
	}
	if m.Type != "connection_ack" {
		d.ended.add("connection_init answered " + m.Type)
		return
	}
	if err := send(map[string]any{"type": "subscribe", "id": "1", "payload": map[string]any{"query": dashboardSubscription}}); err != nil {
		d.ended.add("subscribe: " + errorKind(err))
		return
	}
	d.mu.Lock()
	d.connected = true
	if !d.downSince.IsZero() {
		d.gaps = append(d.gaps, time.Since(d.downSince))
		d.downSince = time.Time{}
		d.reconnects++
	}
	d.mu.Unlock()
	for {
		m.Type, m.Payload = "", nil
		if err := conn.ReadJSON(&m); err != nil {
			d.ended.add("read: " + errorKind(err))
			return
		}
		switch m.Type {
		case "ping":
			_ = send(map[string]any{"type": "pong"})
		case "next":
			var ev struct {
				Data struct {
					MachineStatusChanged struct {
						Machine struct{ MachineID, Status string }
					}
				}
			}
			if json.Unmarshal(m.Payload, &ev) == nil {
				mc := ev.Data.MachineStatusChanged.Machine
				d.mu.Lock()
				d.status[mc.MachineID] = mc.Status
				d.events++
				d.mu.Unlock()
			}
		case "error", "complete":
			d.ended.add("subscription " + m.Type)
			return
		}
	}
}

// errorKind names an error without the addresses and ports that make
// each one unique, so that errors of one kind count together.
func errorKind(err error) string {
	var ce *websocket.CloseError
	switch {
	case errors.As(err, &ce):
		return fmt.Sprintf("closed %d %s", ce.Code, ce.Text)
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return endpointPattern.ReplaceAllString(err.Error(), "ADDR")
}

var endpointPattern = regexp.MustCompile(`(\[[0-9a-f:]*\]|[0-9]+(\.[0-9]+){3})(:[0-9]+)?`)

// view is what the dashboard shows now (nil while it is disconnected).
func (d *dashboard) view() map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.connected {
		return nil
	}
	out := make(map[string]string, len(d.status))
	for k, v := range d.status {
		out[k] = v
	}
	return out
}

func (d *dashboard) live() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.connected
}

// differs lists the machines whose status the view shows otherwise than
// want, "machine: shown → true".
func differs(view, want map[string]string) []string {
	var out []string
	for id, st := range want {
		if view[id] != st {
			out = append(out, fmt.Sprintf("%s: %q → %q", id, view[id], st))
		}
	}
	sort.Strings(out)
	return out
}

// joinMax joins the first n of ss.
func joinMax(ss []string, n int) string {
	if len(ss) > n {
		return strings.Join(ss[:n], "; ") + fmt.Sprintf("; … %d more", len(ss)-n)
	}
	return strings.Join(ss, "; ")
}

// lazy is a failure message worked out only when it is printed.
type lazy func() string

func (l lazy) String() string { return l() }
