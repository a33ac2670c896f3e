package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
)

// token is of the server's form: the prefix and 43 base64url characters.
const token = "gpx_a_SECRETSECRETSECRETSECRETSECRETSECRETSEC"

// logLine is one line of the agent's JSON log.
type logLine struct {
	Level string `json:"level"`
	Msg   string `json:"msg"`
}

// startupLog runs the agent until it gives up for want of a data directory
// (a file stands where it should be), right after its startup warnings, and
// returns everything it logged.
func startupLog(t *testing.T, args []string) string {
	t.Helper()
	blocker := filepath.Join(t.TempDir(), "not-a-directory")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600))
	args = append(args, "--server", "http://127.0.0.1:1", "--data-dir", filepath.Join(blocker, "data"), "--simulate", "1xL4")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 1, run(args, &stdout, &stderr), "no machine identity: %s", stderr.String())
	return stdout.String() + stderr.String()
}

func TestAgentWarnsAtStartWhenTheTokenIsGivenWithTheFlag(t *testing.T) {
	// Not parallel: the agent reads the process environment.
	for _, name := range []string{"GPUNEX_SERVER", "GPUNEX_TOKEN", "GPUNEX_CONFIG", "GPUNEX_DATA_DIR", "GPUNEX_SIMULATE", "GPUNEX_LOG_FORMAT", "GPUNEX_LOG_LEVEL"} {
		t.Setenv(name, "") // empty counts as unset
	}
	file := filepath.Join(t.TempDir(), "agent.env")
	require.NoError(t, os.WriteFile(file, []byte("GPUNEX_TOKEN="+token+"\n"), 0o600))

	for _, tc := range []struct {
		desc   string
		args   []string
		env    string // GPUNEX_TOKEN
		warned bool
	}{
		{"--token", []string{"--token", token}, "", true},
		{"GPUNEX_TOKEN", nil, token, false},
		{"the config file", []string{"--config", file}, "", false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Setenv("GPUNEX_TOKEN", tc.env)
			out := startupLog(t, tc.args)
			require.NotContains(t, out, token, "the token is never logged")
			require.NotContains(t, out, "SECRET")

			var warnings []string
			for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
				var l logLine
				require.NoError(t, json.Unmarshal([]byte(line), &l), "%s", line)
				if l.Level == "WARN" && strings.Contains(l.Msg, "--token") {
					warnings = append(warnings, l.Msg)
				}
			}
			if !tc.warned {
				require.Empty(t, warnings)
				return
			}
			require.Len(t, warnings, 1, "one warning, at start")
			require.Contains(t, warnings[0], "every user of this host can read it")
			require.Contains(t, warnings[0], "GPUNEX_TOKEN environment variable")
			require.Contains(t, warnings[0], "config file")
		})
	}
}

func TestBenchOnceMeasuresTheGPUsWithoutAServerAndPrintsTheResult(t *testing.T) {
	// Not parallel: the agent reads the process environment.
	for _, name := range []string{"GPUNEX_SERVER", "GPUNEX_TOKEN", "GPUNEX_CONFIG", "GPUNEX_DATA_DIR", "GPUNEX_SIMULATE"} {
		t.Setenv(name, "")
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"--bench-once", "--simulate", "1xH100:throttled,1xL4", "--data-dir", t.TempDir(), "--bench-storage-bytes", "1MiB"}, &stdout, &stderr)
	require.Equal(t, 0, code, "%s", stderr.String())
	var res protocol.BenchmarkResultInput
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res), "%s", stdout.String())
	require.True(t, res.Simulated)
	require.Len(t, res.Gpus, 2)
	for _, g := range res.Gpus {
		require.Equal(t, protocol.BenchCompleted, g.Outcome)
		require.Len(t, g.Measurements, len(protocol.GPUMetrics))
	}
	require.Less(t, *res.Gpus[0].Measurements[0].Median, *res.Gpus[1].Measurements[0].Median*2.4,
		"the throttled H100's FP32 is far under its datasheet (67 TFLOPS, the L4's 30.3)")
	require.Contains(t, res.Gpus[0].Evidence.ThrottleReasons, "hw_thermal_slowdown")
	require.NotNil(t, res.Storage, "the storage is measured")
	require.Nil(t, res.Network, "no server, no network figures")
}

// A token the server refuses ends the agent with status 1 and the cause,
// although its benchmark runner is already up: it used to wait for that
// runner, which only a signal stopped (issue 24, item 7).
func TestAgentExitsWithStatusOneWhenTheServerRefusesTheToken(t *testing.T) {
	// Not parallel: the agent reads the process environment.
	for _, name := range []string{"GPUNEX_SERVER", "GPUNEX_CONFIG", "GPUNEX_DATA_DIR", "GPUNEX_SIMULATE", "GPUNEX_LOG_FORMAT", "GPUNEX_LOG_LEVEL"} {
		t.Setenv(name, "")
	}
	t.Setenv("GPUNEX_TOKEN", token)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"errors":[{"message":"the agent token was revoked","extensions":{"code":"UNAUTHENTICATED"}}]}`)
	}))
	t.Cleanup(srv.Close)

	var stdout, stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"--server", srv.URL, "--data-dir", t.TempDir(), "--simulate", "1xL4"}, &stdout, &stderr)
	}()
	select {
	case c := <-code:
		require.Equal(t, 1, c, "%s", stderr.String())
	case <-time.After(60 * time.Second): // a guard against the hang only; the agent answers in milliseconds
		t.Fatal("the agent did not exit after the server refused its token")
	}
	require.Contains(t, stderr.String(), "registerMachine: UNAUTHENTICATED")
	require.Contains(t, stderr.String(), "the agent token no longer works")
	require.NotContains(t, stdout.String()+stderr.String(), token, "the token is never logged")
}
