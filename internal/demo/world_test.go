package demo_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/demo"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// world is the demo world over a test server's services.
func world(t *testing.T, srv *platformtest.Server) demo.World {
	t.Helper()
	return demo.World{
		Auth:       srv.Platform.Auth,
		Providers:  srv.Platform.Providers,
		Onboarding: srv.Platform.Onboarding,
		Fleet:      srv.Platform.Fleet,
		Bench:      srv.Platform.Bench,
		DataDir:    t.TempDir(),
		Logger:     slog.New(slog.DiscardHandler),
	}
}

// logIn signs in as a demo account over the API.
func logIn(t *testing.T, srv *platformtest.Server, email string) *platformtest.Client {
	t.Helper()
	c := srv.NewAPIClient(t, "")
	var out struct{ LogIn struct{ Token *string } }
	c.MustDo(&out, `mutation($e: String!, $p: String!) { logIn(input: {email: $e, password: $p}) { token } }`,
		map[string]any{"e": email, "p": demo.Password})
	require.NotNil(t, out.LogIn.Token, "%s cannot sign in with the demo password", email)
	c.Token = *out.LogIn.Token
	return c
}

func TestSeedCreatesTheREADMEsAccountsOnceAndKeepsChanges(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, srv *platformtest.Server) {
		w := world(t, srv)
		ctx := context.Background()
		require.NoError(t, w.Seed(ctx))
		require.NoError(t, w.Seed(ctx), "seeding again (a restart with --demo) changes nothing")

		tests := []struct {
			desc, email string
			status      *string // of the account's application; nil: none
		}{
			{"the admin", "admin@gpunex.demo", nil},
			{"the approved provider", "provider@gpunex.demo", ptr("APPROVED")},
			{"the customer", "customer@gpunex.demo", nil},
			{"an application awaiting review", "applicant@gpunex.demo", ptr("SUBMITTED")},
			{"an application sent back for information", "info@gpunex.demo", ptr("INFO_REQUESTED")},
			{"a rejected application", "rejected@gpunex.demo", ptr("REJECTED")},
		}
		require.Len(t, demo.Accounts, len(tests))
		for _, tc := range tests {
			c := logIn(t, srv, tc.email)
			var out struct{ MyApplication *struct{ Status string } }
			c.MustDo(&out, `{ myApplication { status } }`, nil)
			if tc.status == nil {
				require.Nil(t, out.MyApplication, tc.desc)
				continue
			}
			require.NotNil(t, out.MyApplication, tc.desc)
			require.Equal(t, *tc.status, out.MyApplication.Status, tc.desc)
		}
	})
}

func TestAgentsBringTheDemoProvidersMachinesOnline(t *testing.T) {
	t.Parallel()
	opts := platformtest.Options{Fleet: fleet.Config{Interval: 200 * time.Millisecond}}
	platformtest.Each(t, opts, func(t *testing.T, srv *platformtest.Server) {
		w := world(t, srv)
		require.NoError(t, w.Seed(context.Background()))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			w.RunAgents(ctx, srv.URL)
		}()
		t.Cleanup(func() {
			cancel()
			<-done
		})

		provider := logIn(t, srv, "provider@gpunex.demo")
		type machine struct {
			Hostname string
			Status   string
			Gpus     []struct{ Name string }
		}
		var machines []machine
		require.Eventually(t, func() bool {
			var out struct{ MyProvider struct{ Machines []machine } }
			provider.MustDo(&out, `{ myProvider { machines { hostname status gpus { name } } } }`, nil)
			machines = out.MyProvider.Machines
			online := 0
			for _, m := range machines {
				if m.Status == "ONLINE" {
					online++
				}
			}
			return online == 2
		}, 20*time.Second, 50*time.Millisecond, "the two demo machines did not come online: %+v", machines)
		gpus := map[string]int{}
		for _, m := range machines {
			gpus[m.Hostname] = len(m.Gpus)
		}
		require.Equal(t, map[string]int{"lisbon-rack-01": 4, "lisbon-edge-01": 2}, gpus, "as the README describes them")

		// The demo fleet has benchmark history, one GPU delisted for
		// thermal throttling with its guidance, and each machine's
		// registration run measured live by its agent (the GPUs the demo
		// keeps busy are postponed, as a customer's job would have them).
		type gpuStatus struct {
			Listing  string
			Guidance []struct{ Code string }
			History  []struct{ Outcome, Error *string }
		}
		type machineBench struct {
			Hostname  string
			LatestRun *struct {
				Reason  string
				Network *struct{ Outcome string }
				Storage *struct{ Outcome string }
			}
			Gpus []gpuStatus
		}
		var bench []machineBench
		require.Eventually(t, func() bool {
			var out struct {
				MyProvider struct{ Benchmarks []machineBench }
			}
			provider.MustDo(&out, `{ myProvider { benchmarks { hostname latestRun { reason network { outcome } storage { outcome } }
			  gpus { listing guidance { code } history { outcome error } } } } }`, nil)
			bench = out.MyProvider.Benchmarks
			live := 0
			for _, m := range bench {
				if m.LatestRun != nil && m.LatestRun.Reason == "REGISTRATION" {
					live++
				}
			}
			return live == 2
		}, 30*time.Second, 100*time.Millisecond, "the demo machines' registration benchmarks did not complete: %+v", bench)
		for _, m := range bench {
			require.Equal(t, "COMPLETED", m.LatestRun.Network.Outcome, m.Hostname)
			require.Equal(t, "COMPLETED", m.LatestRun.Storage.Outcome, m.Hostname)
			for i, g := range m.Gpus {
				require.GreaterOrEqual(t, len(g.History), 14, "%s GPU %d has two weeks of history", m.Hostname, i)
				wantListing := "LISTED"
				if m.Hostname == "lisbon-rack-01" && i == 3 {
					wantListing = "DELISTED"
					require.Equal(t, "THERMAL_THROTTLING", g.Guidance[0].Code)
				}
				require.Equal(t, wantListing, g.Listing, "%s GPU %d", m.Hostname, i)
				if m.Hostname == "lisbon-rack-01" && i < 2 {
					require.Equal(t, "POSTPONED", *g.History[0].Outcome, "a busy GPU is not benchmarked")
					require.Contains(t, *g.History[0].Error, "demo-training-run")
				}
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }
