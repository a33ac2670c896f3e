package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
)

// loopback is a Platform straight to an httptest server.
type loopback struct{ url string }

func (l loopback) NewPlatformRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, method, l.url+path, body)
}

func (loopback) DoPlatform(req *http.Request) (*http.Response, error) {
	return http.DefaultClient.Do(req)
}

func TestNetworkUploadStreamsItsBodyWithoutHoldingIt(t *testing.T) {
	t.Parallel()
	var read atomic.Int64
	var contentLength atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		contentLength.Store(r.ContentLength)
		buf := make([]byte, 32<<10)
		n, _ := io.CopyBuffer(io.Discard, r.Body, buf)
		read.Store(n)
		_, _ = fmt.Fprint(w, n)
	}))
	t.Cleanup(srv.Close)
	n := &Network{Platform: loopback{srv.URL}}

	const size = protocol.BenchMaxTransferBytes // 64 MiB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := n.upload(context.Background(), size)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Positive(t, *m.Median)
	require.Equal(t, int64(size), read.Load(), "the server saw every byte")
	require.Equal(t, int64(size), contentLength.Load(), "sent with its length, not chunked")
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(size/8),
		"the client and the server together allocated far less than the body")
}

func TestUploadCountReadsTheServersAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer string
		n      int64
		ok     bool
	}{{"123", 123, true}, {` {"bytes": 77} `, 77, true}, {"ok", 0, false}, {`{"read":5}`, 0, false}} {
		n, ok := uploadCount([]byte(tc.answer))
		require.Equal(t, tc.ok, ok, tc.answer)
		require.Equal(t, tc.n, n, tc.answer)
	}
}
