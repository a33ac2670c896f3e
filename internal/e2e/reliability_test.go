package e2e_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// Killing a real simulated agent during a rental lowers its provider's
// reliability score, which the provider's reliabilityUpdated subscription
// shows, with the interrupted job as an event; and the provider's other
// listing drops in the marketplace's ranking.
func TestKillingAnAgentDuringARentalLowersTheScoreAndTheRanking(t *testing.T) {
	t.Parallel()
	serverBin, agentBin := binaries(t)
	for _, stack := range []string{"sqlite+memory", "postgres+redis"} {
		t.Run(stack, func(t *testing.T) {
			t.Parallel()
			extra := []string{"--reliability-every", "1s", "--metering-every", "1s"}
			if stack == "postgres+redis" {
				rs := redistest.Start(t, 0)
				extra = append(extra, "--database-url", storetest.PostgresURL(t), "--redis-url", rs.URL(), "--redis-prefix", "e2e:")
			}
			_, url := serve(t, serverBin, extra...)
			srv := &platformtest.Server{URL: url}
			provider, agentToken := demoAgentToken(t, srv)
			provider.MustDo(nil, `mutation { setGpuPrice(input: {model: "H100_SXM_80GB", pricePerHour: "2.500000"}) { userErrors { field } } }`, nil)
			customer := srv.NewAPIClient(t, "")
			var li struct{ LogIn struct{ Token *string } }
			customer.MustDo(&li, `mutation { logIn(input: {email: "customer@gpunex.demo", password: "gpunex-demo"}) { token } }`, nil)
			customer.Token = *li.LogIn.Token

			// The first agent's GPU is listed and rented.
			doomed := startWithEnv(t, []string{"GPUNEX_TOKEN=" + agentToken}, agentBin, "--server", url, "--data-dir", t.TempDir(),
				"--simulate", "1xH100", "--hostname", "doomed-host")
			var rented string
			await.True(t, func() bool {
				for _, l := range listings(t, customer) {
					if l.Simulated {
						rented = l.ID
						return true
					}
				}
				return false
			}, "the first agent's GPU is listed")
			var started struct {
				StartRental struct {
					Rental     *struct{ ID string }
					UserErrors []struct{ Field, Code string }
				}
			}
			customer.MustDo(&started, `mutation($l: ID!) { startRental(input: {listingId: $l, gpuCount: 1, image: "busybox",
				command: ["sh", "-c", "exec sleep 300"]}) { rental { id } userErrors { field code } } }`, map[string]any{"l": rented})
			require.Empty(t, started.StartRental.UserErrors)

			// A second agent: its listing is the provider's other one.
			startWithEnv(t, []string{"GPUNEX_TOKEN=" + agentToken}, agentBin, "--server", url, "--data-dir", t.TempDir(),
				"--simulate", "1xH100", "--hostname", "steady-host")
			type ranked struct {
				ID   string
				Rank float64
			}
			other := func() *ranked {
				var m struct {
					Marketplace struct{ Edges []struct{ Node ranked } }
				}
				customer.MustDo(&m, `{ marketplace(filter: {model: "H100_SXM_80GB"}, first: 20) { edges { node { id rank } } } }`, nil)
				for _, e := range m.Marketplace.Edges {
					if e.Node.ID != rented {
						return &e.Node
					}
				}
				return nil
			}
			var before *ranked
			await.True(t, func() bool { before = other(); return before != nil },
				"the second agent's GPU is listed")

			ws, _, err := srv.DialWS(t, nil)
			require.NoError(t, err)
			ws.Init(map[string]any{"authorization": "Bearer " + provider.Token})
			ws.Subscribe("1", `subscription { reliabilityUpdated { score components { completion } events { kind hostname cost } } }`, nil)
			type summary struct {
				Score      int
				Components struct{ Completion float64 }
				Events     []struct {
					Kind, Hostname string
					Cost           float64
				}
			}
			next := func() summary {
				m := ws.MustRead(60 * time.Second)
				require.Equal(t, "next", m.Type, "%s", m.Payload)
				var ev struct {
					Data struct{ ReliabilityUpdated summary }
				}
				require.NoError(t, json.Unmarshal(m.Payload, &ev))
				return ev.Data.ReliabilityUpdated
			}
			first := next()

			require.NoError(t, doomed.cmd.Process.Kill())
			var hit summary
			await.True(t, func() bool {
				hit = next()
				for _, e := range hit.Events {
					if e.Kind == "JOB_INTERRUPTED" && e.Hostname == "doomed-host" {
						return true
					}
				}
				return false
			}, "the interrupted rental reaches the provider's reliability")
			require.Less(t, hit.Score, first.Score)
			require.Less(t, hit.Components.Completion, first.Components.Completion)

			await.True(t, func() bool {
				after := other()
				return after != nil && after.Rank < before.Rank
			}, "the provider's other listing drops in the ranking")
		})
	}
}
