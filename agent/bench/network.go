package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
)

// Defaults of Network.
const (
	// DefaultTransferBytes is the size of the download and of the upload.
	DefaultTransferBytes = 16 << 20
	// DefaultPings is how many round trips the latency is the median of.
	DefaultPings = 15
	// DefaultTransferTimeout bounds one request: 64 MiB at 8 Mbit/s.
	DefaultTransferTimeout = 90 * time.Second
)

// Platform sends the network benchmark's requests to the GPUnex server.
// *client.Client implements it: it knows the server's address, the agent
// token and the machine id, and keeps the token to itself (the benchmark
// never sees it, so it cannot log it).
type Platform interface {
	// NewPlatformRequest builds a request for path (with its query) on the
	// server, carrying the token (Authorization: Bearer) and the machine
	// id (protocol.BenchMachineHeader).
	NewPlatformRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error)
	// DoPlatform sends such a request.
	DoPlatform(req *http.Request) (*http.Response, error)
}

// Network measures the latency and throughput to the platform with
// protocol's bench endpoints.
type Network struct {
	// Platform sends the requests.
	Platform Platform
	// Bytes is the download and the upload size; DefaultTransferBytes when
	// zero, at most protocol.BenchMaxTransferBytes.
	Bytes int64
	// Pings is how many round trips the latency is the median of;
	// DefaultPings when zero.
	Pings int
	// Timeout bounds one request; DefaultTransferTimeout when zero.
	Timeout time.Duration
	// Logger receives the section's log; nothing is logged when nil.
	Logger *slog.Logger
}

// Measure runs the section: latency, then download, then upload. The first
// failure ends it with outcome FAILED and an Error naming the step and the
// server's answer; the figures measured before it are kept.
func (n *Network) Measure(ctx context.Context) *protocol.BenchSection {
	sec := &protocol.BenchSection{Outcome: protocol.BenchCompleted, Measurements: []protocol.BenchMeasurement{}}
	size := n.Bytes
	if size <= 0 {
		size = DefaultTransferBytes
	}
	size = min(size, protocol.BenchMaxTransferBytes)
	steps := []func(context.Context, int64) (protocol.BenchMeasurement, error){n.latency, n.download, n.upload}
	for _, step := range steps {
		m, err := step(ctx, size)
		if err != nil {
			sec.Outcome = protocol.BenchFailed
			sec.Error = ptr(shorten(err.Error()))
			n.logger().Warn("bench: network section failed", "err", err)
			return sec
		}
		sec.Measurements = append(sec.Measurements, m)
	}
	n.logger().Info("bench: network measured", "bytes", size, "measurements", summary(sec.Measurements))
	return sec
}

func (n *Network) logger() *slog.Logger {
	if n.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return n.Logger
}

// latency is the median round trip of small GETs on one kept-alive
// connection; a first request opens the connection (TCP and TLS
// handshakes are not latency) and is not counted.
func (n *Network) latency(ctx context.Context, _ int64) (protocol.BenchMeasurement, error) {
	pings := n.Pings
	if pings <= 0 {
		pings = DefaultPings
	}
	rtts := make([]float64, 0, pings)
	for i := range pings + 1 {
		start := time.Now()
		if err := n.exchange(ctx, http.MethodGet, protocol.BenchPingPath, nil, -1, nil); err != nil {
			return protocol.BenchMeasurement{}, err
		}
		if i > 0 {
			rtts = append(rtts, float64(time.Since(start).Microseconds())/1000)
		}
	}
	return spread(protocol.MetricNetworkLatency, rtts, 2), nil
}

// download reads size bytes from the download endpoint. The clock runs
// from the response's headers to its last byte, so the server's time to
// first byte (one round trip, which the latency already says) does not
// count against the throughput.
func (n *Network) download(ctx context.Context, size int64) (protocol.BenchMeasurement, error) {
	path := protocol.BenchDownloadPath + "?bytes=" + strconv.FormatInt(size, 10)
	var read int64
	var took time.Duration
	err := n.exchange(ctx, http.MethodGet, path, nil, -1, func(resp *http.Response) error {
		start := time.Now()
		var err error
		read, err = io.Copy(io.Discard, resp.Body)
		took = time.Since(start)
		if err != nil {
			return fmt.Errorf("reading the download: %w", err)
		}
		if read != size {
			return fmt.Errorf("the download ended after %d of %d bytes", read, size)
		}
		return nil
	})
	if err != nil {
		return protocol.BenchMeasurement{}, err
	}
	return spread(protocol.MetricNetworkDownload, []float64{mbits(read, took)}, 2), nil
}

// upload streams size pseudo-random bytes (incompressible, generated as
// they are sent: the body is never held in memory) and times the request
// up to the server's answer, which is when the server has read them all.
func (n *Network) upload(ctx context.Context, size int64) (protocol.BenchMeasurement, error) {
	body := io.LimitReader(rand.NewChaCha8(seed32(time.Now().UnixNano())), size)
	start := time.Now()
	var took time.Duration
	err := n.exchange(ctx, http.MethodPost, protocol.BenchUploadPath, body, size, func(resp *http.Response) error {
		took = time.Since(start)
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if got, ok := uploadCount(answer); ok && got != size {
			return fmt.Errorf("the server read %d of the %d bytes uploaded", got, size)
		}
		return nil
	})
	if err != nil {
		return protocol.BenchMeasurement{}, err
	}
	return spread(protocol.MetricNetworkUpload, []float64{mbits(size, took)}, 2), nil
}

// exchange sends one request and hands a 2xx answer to read (or drains
// it). Any other answer is an error naming the step and the status.
func (n *Network) exchange(ctx context.Context, method, path string, body io.Reader, length int64, read func(*http.Response) error) error {
	timeout := n.Timeout
	if timeout <= 0 {
		timeout = DefaultTransferTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	step := method + " " + strings.SplitN(path, "?", 2)[0]
	req, err := n.Platform.NewPlatformRequest(ctx, method, path, body)
	if err != nil {
		return fmt.Errorf("%s: %w", step, err)
	}
	if length >= 0 {
		req.ContentLength = length
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	resp, err := n.Platform.DoPlatform(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%s: no answer within %s", step, timeout)
		}
		return fmt.Errorf("%s: %w", step, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return statusError(step, resp)
	}
	if read == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := read(resp); err != nil {
		return fmt.Errorf("%s: %w", step, err)
	}
	return nil
}

// statusError explains a refused request in the provider's terms.
func statusError(step string, resp *http.Response) error {
	msg := fmt.Sprintf("%s: HTTP %d %s", step, resp.StatusCode, http.StatusText(resp.StatusCode))
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		msg += ": the server refused the agent token"
	case http.StatusForbidden:
		msg += ": the server refused this machine for the token's provider"
	case http.StatusTooManyRequests:
		msg += ": rate-limited by the server"
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			msg += "; retry after " + ra + "s"
		}
	case http.StatusNotFound:
		msg += ": the server has no benchmark endpoint; is it older than the agent?"
	}
	return errors.New(msg)
}

// uploadCount reads the upload endpoint's byte count: a JSON number, an
// object with a "bytes" field, or plain text. It reports false when the
// answer says none, which is not an error.
func uploadCount(answer []byte) (int64, bool) {
	text := strings.TrimSpace(string(answer))
	if v, err := strconv.ParseInt(text, 10, 64); err == nil {
		return v, true
	}
	var obj struct {
		Bytes *int64 `json:"bytes"`
	}
	if json.Unmarshal(answer, &obj) == nil && obj.Bytes != nil {
		return *obj.Bytes, true
	}
	return 0, false
}

// mbits is bits per second in millions.
func mbits(bytes int64, took time.Duration) float64 {
	if took <= 0 {
		took = time.Microsecond
	}
	return float64(bytes) * 8 / took.Seconds() / 1e6
}

// spread is one metric's measurement from its repetitions: the median and
// the extremes.
func spread(metric protocol.BenchMetric, values []float64, digits int) protocol.BenchMeasurement {
	v := slices.Clone(values)
	slices.Sort(v)
	median := v[len(v)/2]
	if len(v)%2 == 0 {
		median = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return protocol.BenchMeasurement{Metric: metric, Supported: true, Repetitions: len(v),
		Median: ptr(round(median, digits)), Min: ptr(round(v[0], digits)), Max: ptr(round(v[len(v)-1], digits))}
}

// seed32 spreads a number into a ChaCha8 seed.
func seed32(n int64) [32]byte {
	var s [32]byte
	for i := range 4 {
		v := uint64(n) * (0x9E3779B97F4A7C15 + uint64(i)*2)
		for j := range 8 {
			s[8*i+j] = byte(v >> (8 * j))
		}
	}
	return s
}

// summary renders measurements for a log line.
func summary(ms []protocol.BenchMeasurement) string {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		if m.Median != nil {
			parts = append(parts, fmt.Sprintf("%s=%g", m.Metric, *m.Median))
		}
	}
	return strings.Join(parts, " ")
}
