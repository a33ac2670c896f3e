package platform_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// benchRequest sends one request to a network benchmark endpoint.
func benchRequest(t *testing.T, s *platformtest.Server, method, path, token, machineID string, body io.Reader, size int64) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, body)
	require.NoError(t, err)
	if size >= 0 && body != nil {
		req.ContentLength = size
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if machineID != "" {
		req.Header.Set(protocol.BenchMachineHeader, machineID)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

// registered registers a machine for p's agent token and returns its id.
func registered(t *testing.T, s *platformtest.Server, p *platformtest.Provider) string {
	t.Helper()
	uid := "bench-" + strings.ReplaceAll(platformtest.UniqueEmail("m")[2:12], "@", "")
	var reg struct{ RegisterMachine struct{ UserErrors []any } }
	s.NewAPIClient(t, p.AgentToken).MustDo(&reg, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA H100 80GB HBM3")})
	require.Empty(t, reg.RegisterMachine.UserErrors)
	return uid
}

func TestNetworkBenchmarkEndpointsNeedTheAgentTokenOfTheMachinesProvider(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "benchnet-auth")
		other := s.NewProvider(t, "benchnet-other")
		uid := registered(t, s, p)
		for _, tc := range []struct {
			desc, token, machine string
			status               int
			code                 string
		}{
			{"no token", "", uid, http.StatusUnauthorized, "UNAUTHENTICATED"},
			{"a session token is not an agent token", "gpx_s_notanagent", uid, http.StatusUnauthorized, "UNAUTHENTICATED"},
			{"a revoked or made-up agent token", "gpx_a_" + strings.Repeat("x", 40), uid, http.StatusUnauthorized, "UNAUTHENTICATED"},
			{"no machine header", p.AgentToken, "", http.StatusBadRequest, "BAD_USER_INPUT"},
			{"an unknown machine", p.AgentToken, "never-registered", http.StatusNotFound, "NOT_FOUND"},
			{"another provider's machine", other.AgentToken, uid, http.StatusNotFound, "NOT_FOUND"},
			{"its own machine", p.AgentToken, uid, http.StatusOK, ""},
		} {
			res := benchRequest(t, s, http.MethodGet, protocol.BenchPingPath, tc.token, tc.machine, nil, -1)
			require.Equal(t, tc.status, res.StatusCode, tc.desc)
			if tc.code != "" {
				var body struct {
					Errors []struct{ Extensions struct{ Code string } }
				}
				require.NoError(t, json.NewDecoder(res.Body).Decode(&body), tc.desc)
				require.Equal(t, tc.code, body.Errors[0].Extensions.Code, tc.desc)
			}
		}
	})
}

func TestNetworkBenchmarkStreamsWithinTheCap(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "benchnet-caps")
		uid := registered(t, s, p)

		res := benchRequest(t, s, http.MethodGet, protocol.BenchDownloadPath+"?bytes=3000000", p.AgentToken, uid, nil, -1)
		require.Equal(t, http.StatusOK, res.StatusCode)
		n, err := io.Copy(io.Discard, res.Body)
		require.NoError(t, err)
		require.EqualValues(t, 3_000_000, n, "exactly the bytes asked for")

		for _, q := range []string{"", "?bytes=0", "?bytes=-5", "?bytes=abc", "?bytes=" + strconv.Itoa(protocol.BenchMaxTransferBytes+1)} {
			res := benchRequest(t, s, http.MethodGet, protocol.BenchDownloadPath+q, p.AgentToken, uid, nil, -1)
			require.Equal(t, http.StatusBadRequest, res.StatusCode, "download%s is refused", q)
		}

		const up = 5 << 20
		res = benchRequest(t, s, http.MethodPost, protocol.BenchUploadPath, p.AgentToken, uid, io.LimitReader(zeros{}, up), up)
		require.Equal(t, http.StatusOK, res.StatusCode)
		var got struct{ Bytes int64 }
		require.NoError(t, json.NewDecoder(res.Body).Decode(&got))
		require.EqualValues(t, up, got.Bytes, "the server read every byte")

		over := int64(protocol.BenchMaxTransferBytes + 1)
		res = benchRequest(t, s, http.MethodPost, protocol.BenchUploadPath, p.AgentToken, uid, io.LimitReader(zeros{}, over), over)
		require.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode, "an upload over the cap is refused")

		res = benchRequest(t, s, http.MethodGet, protocol.BenchPingPath, p.AgentToken, uid, nil, -1)
		require.Equal(t, http.StatusOK, res.StatusCode, "the server keeps serving")
	})
}

func TestNetworkBenchmarkIsRateLimitedPerMachine(t *testing.T) {
	t.Parallel()
	opts := platformtest.Options{BenchNetwork: api.BenchNetworkConfig{RequestsPerSecond: 0.001, RequestBurst: 3, BytesPerSecond: 1, ByteBurst: 4 << 20}}
	platformtest.Each(t, opts, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "benchnet-rate")
		a, b := registered(t, s, p), registered(t, s, p)

		res := benchRequest(t, s, http.MethodGet, protocol.BenchDownloadPath+"?bytes=3000000", p.AgentToken, a, nil, -1)
		require.Equal(t, http.StatusOK, res.StatusCode)
		_, _ = io.Copy(io.Discard, res.Body)
		res = benchRequest(t, s, http.MethodGet, protocol.BenchDownloadPath+"?bytes=3000000", p.AgentToken, a, nil, -1)
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "the machine's transfer allowance is spent")
		require.NotEmpty(t, res.Header.Get("Retry-After"))

		require.Equal(t, http.StatusOK, benchRequest(t, s, http.MethodGet, protocol.BenchPingPath, p.AgentToken, a, nil, -1).StatusCode)
		res = benchRequest(t, s, http.MethodGet, protocol.BenchPingPath, p.AgentToken, a, nil, -1)
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "three requests were the burst")

		res = benchRequest(t, s, http.MethodGet, protocol.BenchPingPath, p.AgentToken, b, nil, -1)
		require.Equal(t, http.StatusOK, res.StatusCode, "another machine has its own allowance")
	})
}

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
