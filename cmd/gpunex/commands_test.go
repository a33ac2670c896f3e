package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/resolvers"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func TestMigrateAndUserCreateOnEveryBackend(t *testing.T) {
	t.Parallel()
	for _, backend := range storetest.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			cfg := storetest.Config(t, backend)
			storage := []string{"--data-dir", cfg.DataDir, "--database-url", cfg.DatabaseURL}
			if cfg.DatabaseURL == "" {
				storage = []string{"--data-dir", cfg.DataDir}
			}
			with := func(args ...string) []string { return append(args, storage...) }

			out, err := runCLI(t, with("migrate", "status")...)
			require.NoError(t, err)
			require.Contains(t, out, "pending")
			require.Contains(t, out, backend)

			out, err = runCLI(t, with("migrate", "up")...)
			require.NoError(t, err)
			require.Contains(t, out, "applied 20261129000001_accounts")

			out, err = runCLI(t, with("migrate", "up")...)
			require.NoError(t, err)
			require.Contains(t, out, "up to date")

			out, err = runCLI(t, with("user", "create", "--email", "Root@Example.com", "--password", "a long admin password", "--admin")...)
			require.NoError(t, err)
			require.Contains(t, out, "<root@example.com>")
			require.Contains(t, out, "ADMIN")

			_, err = runCLI(t, with("user", "create", "--email", "root@example.com", "--password", "a long admin password")...)
			require.ErrorContains(t, err, "already exists")

			_, err = runCLI(t, with("user", "create", "--email", "x@example.com", "--password", "short")...)
			require.ErrorContains(t, err, "--password")

			out, err = runCLI(t, with("migrate", "down")...)
			require.NoError(t, err)
			require.Contains(t, out, "rolled back 20261129000001_accounts")
			out, err = runCLI(t, with("migrate", "status")...)
			require.NoError(t, err)
			require.False(t, strings.Contains(out, "applied ("), out)
		})
	}
}

func TestMigrateRefusesUnknownDirections(t *testing.T) {
	t.Parallel()
	_, err := runCLI(t, "migrate", "sideways", "--data-dir", t.TempDir())
	require.Error(t, err)
}

func TestUnparsableEnvironmentValuesAreRefused(t *testing.T) {
	t.Setenv("GPUNEX_SECURE_COOKIES", "yes please")
	_, err := runCLI(t, "migrate", "status", "--data-dir", t.TempDir())
	require.ErrorContains(t, err, `GPUNEX_SECURE_COOKIES="yes please" is not valid`)
}

// Issue 9 points 4 and 9: the socket caps, trusted proxies and a private
// metrics address are serve flags with environment variables.
func TestServeFlagsSetSocketCapsTrustedProxiesAndMetrics(t *testing.T) {
	t.Setenv("GPUNEX_WS_MAX_PER_ADDRESS", "8")
	var af apiFlags
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	af.register(fs)
	require.NoError(t, fs.Parse([]string{"--ws-max-subscriptions", "5", "--ws-max-per-user", "-1",
		"--trusted-proxies", "10.0.0.0/8, 192.0.2.7", "--metrics-addr", "127.0.0.1:0"}))
	cfg, err := af.config()
	require.NoError(t, err)
	require.Equal(t, 5, cfg.WSMaxSubscriptions)
	require.Equal(t, -1, cfg.WSMaxPerUser, "-1 lifts the cap")
	require.Equal(t, 8, cfg.WSMaxPerAddress, "from GPUNEX_WS_MAX_PER_ADDRESS")
	require.Len(t, cfg.TrustedProxies, 2)
	require.Equal(t, "192.0.2.7/32", cfg.TrustedProxies[1].String())
	require.True(t, cfg.SeparateMetrics)

	var defaults apiFlags
	fs = pflag.NewFlagSet("serve", pflag.ContinueOnError)
	defaults.register(fs)
	require.NoError(t, fs.Parse(nil))
	cfg, err = defaults.config()
	require.NoError(t, err)
	require.Equal(t, []int{50, 16, 8, 20}, []int{cfg.WSMaxSubscriptions, cfg.WSMaxPerUser, cfg.WSMaxPerAddress, cfg.WSMessageRate})
	require.False(t, cfg.SeparateMetrics)

	for _, args := range [][]string{{"--trusted-proxies", "proxy.internal"}, {"--ws-max-per-user", "0"}} {
		var bad apiFlags
		fs = pflag.NewFlagSet("serve", pflag.ContinueOnError)
		bad.register(fs)
		require.NoError(t, fs.Parse(args))
		_, err = bad.config()
		require.Error(t, err, "%v", args)
	}

	t.Setenv("GPUNEX_WS_MAX_PER_USER", "lots")
	_, err = runCLI(t, "migrate", "status", "--data-dir", t.TempDir())
	require.ErrorContains(t, err, `GPUNEX_WS_MAX_PER_USER="lots" is not valid`)
}

// Issue 25, point 4: each package checks the configuration values it owns
// (Config.Validate); gpunex serve names the flags. A bad value stops serve
// before anything is opened.
func TestServeRefusesValuesTheirPackagesDoNotTake(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--heartbeat-interval", "500ms"}, "--heartbeat-interval, --telemetry-every: the heartbeat interval must be between 1s and 1h"},
		{[]string{"--telemetry-every", "100ms"}, "--heartbeat-interval, --telemetry-every: the telemetry interval must be between 1s and 1h"},
		{[]string{"--bench-every", "30m"}, "--bench-every, --bench-cooldown: machines are benchmarked at most every hour"},
		{[]string{"--bench-cooldown", "10s"}, "--bench-every, --bench-cooldown: a requested benchmark's cooldown is at least 1m"},
		{[]string{"--platform-fee-bps", "10000"}, "--platform-fee-bps: the platform's fee must be between 1 and 9999 basis points"},
		{[]string{"--metering-every", "2m"}, "--metering-every, --payout-every: metering runs at least once a minute"},
		{[]string{"--payout-every", "100ms"}, "--metering-every, --payout-every: payout runs are at least 1s apart"},
		{[]string{"--deposit-follow-every", "500ms"}, "--deposit-follow-every, --deposit-expiry, --deposit-late-for: deposits are followed every 1s to 10m0s; got 500ms"},
		{[]string{"--deposit-expiry", "30s"}, "--deposit-follow-every, --deposit-expiry, --deposit-late-for: a deposit request is open from 1m0s to 168h0m0s; got 30s"},
		{[]string{"--deposit-late-for", "800h"}, "--deposit-follow-every, --deposit-expiry, --deposit-late-for: a deposit request is followed at most 720h0m0s after it expires; got 800h0m0s"},
		{[]string{"--reliability-floor", "101"}, "--reliability-every, --reliability-floor: the reliability floor must be between 1 and 100"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			_, err := runCLI(t, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir}, tc.args...)...)
			require.ErrorContains(t, err, tc.want)
			entries, rerr := os.ReadDir(dir)
			require.NoError(t, rerr)
			require.Empty(t, entries, "nothing was opened")
		})
	}
}

// The private metrics address serves the Prometheus series and Go's
// runtime profiles (an operator's view of what a replica holds and where
// its CPU goes); the public address serves neither profile.
func TestThePrivateMetricsAddressServesTheRuntimesProfiles(t *testing.T) {
	t.Parallel()
	private := httptest.NewServer(privateHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "go_goroutines 7\n")
	})))
	t.Cleanup(private.Close)
	get := func(url string) (int, string) {
		t.Helper()
		res, err := http.Get(url)
		require.NoError(t, err)
		defer func() { _ = res.Body.Close() }()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(b)
	}
	code, body := get(private.URL + "/metrics")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "go_goroutines 7\n", body)
	code, body = get(private.URL + "/debug/pprof/heap?debug=1")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "heap profile:")
	code, body = get(private.URL + "/debug/pprof/goroutine?debug=1")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "goroutine profile:")

	public := httptest.NewServer(api.New(api.Config{SeparateMetrics: true}, api.Deps{
		Schema: graph.NewExecutableSchema(resolvers.NewSchema(&resolvers.Resolver{})), Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(public.Close)
	for _, path := range []string{"/debug/pprof/heap?debug=1", "/debug/pprof/", "/metrics"} {
		_, body = get(public.URL + path)
		require.NotContains(t, body, "heap profile:", path)
		require.NotContains(t, body, "go_goroutines", path)
		require.NotContains(t, body, "Types of profiles available", path)
	}
}
