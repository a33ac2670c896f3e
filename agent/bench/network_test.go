package bench_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
)

const (
	testToken   = "gpx_a_BENCHBENCHBENCHBENCHBENCHBENCHBENCHBENC"
	testMachine = "machine-bench"
)

// newPlatform is the agent's real client pointed at server.
func newPlatform(t *testing.T, server string) *client.Client {
	t.Helper()
	s, err := gpu.ParseSimSpec("1xL4")
	require.NoError(t, err)
	c, err := client.New(client.Options{Server: server, Token: testToken, MachineID: testMachine,
		Detector: gpu.NewSimulator(s), DataDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// plenty is a FreeSpace with room to spare.
func plenty(string) (uint64, error) { return 1 << 40, nil }

// benchServer mimics the platform's bench endpoints as protocol describes
// them: token and machine header required, ping answers at once, download
// streams ?bytes=N, upload reads the body and answers the count.
type benchServer struct {
	srv      *httptest.Server
	pings    atomic.Int64
	uploaded atomic.Int64
	status   atomic.Int32 // a non-zero status answers every request

	mu      sync.Mutex
	headers []http.Header
}

func newBenchServer(t *testing.T) *benchServer {
	s := &benchServer{}
	mux := http.NewServeMux()
	guard := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			s.headers = append(s.headers, r.Header.Clone())
			s.mu.Unlock()
			if st := s.status.Load(); st != 0 {
				w.Header().Set("Retry-After", "30")
				http.Error(w, http.StatusText(int(st)), int(st))
				return
			}
			if r.Header.Get("Authorization") != "Bearer "+testToken || r.Header.Get(protocol.BenchMachineHeader) != testMachine {
				http.Error(w, "unauthenticated", http.StatusUnauthorized)
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET "+protocol.BenchPingPath, guard(func(w http.ResponseWriter, _ *http.Request) {
		s.pings.Add(1)
		_, _ = io.WriteString(w, "pong")
	}))
	mux.HandleFunc("GET "+protocol.BenchDownloadPath, guard(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.ParseInt(r.URL.Query().Get("bytes"), 10, 64)
		if err != nil || n <= 0 || n > protocol.BenchMaxTransferBytes {
			http.Error(w, "bad bytes", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		_, _ = io.CopyN(w, rand.Reader, n)
	}))
	mux.HandleFunc("POST "+protocol.BenchUploadPath, guard(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, io.LimitReader(r.Body, protocol.BenchMaxTransferBytes+1))
		if err != nil || n > protocol.BenchMaxTransferBytes {
			http.Error(w, "too big", http.StatusRequestEntityTooLarge)
			return
		}
		s.uploaded.Add(n)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"bytes":%d}`, n)
	}))
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func TestNetworkMeasuresLatencyAndThroughputWithTheAgentsCredentials(t *testing.T) {
	t.Parallel()
	p := newBenchServer(t)
	n := &bench.Network{Platform: newPlatform(t, p.srv.URL), Bytes: 4 << 20, Pings: 10}

	sec := n.Measure(context.Background())
	require.Equal(t, protocol.BenchCompleted, sec.Outcome, "%v", sec.Error)
	require.Nil(t, sec.Error)
	require.Len(t, sec.Measurements, 3)
	for i, metric := range protocol.NetworkMetrics {
		m := sec.Measurements[i]
		require.Equal(t, metric, m.Metric)
		require.True(t, m.Supported)
		require.Positive(t, *m.Median)
	}
	require.Equal(t, 10, sec.Measurements[0].Repetitions)
	require.Equal(t, int64(11), p.pings.Load(), "ten timed and one to open the connection")
	require.Equal(t, int64(4<<20), p.uploaded.Load(), "the server read every byte")
	for _, h := range p.headers {
		require.Equal(t, "Bearer "+testToken, h.Get("Authorization"))
		require.Equal(t, testMachine, h.Get(protocol.BenchMachineHeader))
	}
}

func TestNetworkFailsTheSectionWithAClearErrorOnAnHTTPError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		status int
		want   string
	}{
		{"rate-limited", http.StatusTooManyRequests, "GET /agent/bench/ping: HTTP 429 Too Many Requests: rate-limited by the server; retry after 30s"},
		{"token refused", http.StatusUnauthorized, "HTTP 401 Unauthorized: the server refused the agent token"},
		{"machine refused", http.StatusForbidden, "HTTP 403 Forbidden: the server refused this machine"},
		{"server down", http.StatusBadGateway, "HTTP 502 Bad Gateway"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			p := newBenchServer(t)
			p.status.Store(int32(tc.status))
			sec := (&bench.Network{Platform: newPlatform(t, p.srv.URL)}).Measure(context.Background())
			require.Equal(t, protocol.BenchFailed, sec.Outcome)
			require.Contains(t, *sec.Error, tc.want)
			require.NotContains(t, *sec.Error, testToken)
			require.Empty(t, sec.Measurements)
		})
	}
}
