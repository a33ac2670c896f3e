package e2e_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/job/docker/dockertest"
	"github.com/gpunex/gpunex/internal/await"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

const marketplaceQuery = `query { marketplace(filter: {model: "H100_SXM_80GB"}, first: 20) { edges { node { id gpuCount simulated } } } }`

// listings are the rentable H100 listings now.
func listings(t *testing.T, c *platformtest.Client) []struct {
	ID        string
	GpuCount  int
	Simulated bool
} {
	t.Helper()
	var m struct {
		Marketplace struct {
			Edges []struct {
				Node struct {
					ID        string
					GpuCount  int
					Simulated bool
				}
			}
		}
	}
	c.MustDo(&m, marketplaceQuery, nil)
	var out []struct {
		ID        string
		GpuCount  int
		Simulated bool
	}
	for _, e := range m.Marketplace.Edges {
		out = append(out, struct {
			ID        string
			GpuCount  int
			Simulated bool
		}(e.Node))
	}
	return out
}

func TestRealAgentRunsARentalsJobWhoseLogsReachTheCustomerUntilStopped(t *testing.T) {
	t.Parallel()
	serverBin, agentBin := binaries(t)
	// The third run has the agent run the job in a real container through
	// its Docker runtime (--job-runtime docker: the simulated GPUs give the
	// container no device; the device request is checked against the
	// recording engine in agent/job/docker).
	for _, stack := range []string{"sqlite+memory", "postgres+redis", "sqlite+memory+docker"} {
		t.Run(stack, func(t *testing.T) {
			t.Parallel()
			image, agentExtra, agentEnv := "busybox", []string(nil), []string(nil)
			var engine *client.Client
			if stack == "sqlite+memory+docker" {
				var err error
				if engine, err = dockertest.Engine(context.Background()); err != nil {
					t.Skip(err.Error())
				}
				t.Cleanup(func() { _ = engine.Close() })
				require.NoError(t, dockertest.ImportImage(context.Background(), engine))
				dockertest.Beside(t)
				image, agentExtra, agentEnv = dockertest.Image, []string{"--job-runtime", "docker"}, []string{"DOCKER_HOST=" + dockertest.Host()}
			}
			var extra []string
			if stack == "postgres+redis" {
				rs := redistest.Start(t, 0)
				extra = append(extra, "--database-url", storetest.PostgresURL(t), "--redis-url", rs.URL(), "--redis-prefix", "e2e:")
			}
			_, url := serve(t, serverBin, extra...)
			srv := &platformtest.Server{URL: url}
			provider, agentToken := demoAgentToken(t, srv)

			var price struct {
				SetGpuPrice struct {
					UserErrors []struct{ Field, Message string }
				}
			}
			provider.MustDo(&price, `mutation { setGpuPrice(input: {model: "H100_SXM_80GB", pricePerHour: "2.500000"}) { userErrors { field message } } }`, nil)
			require.Empty(t, price.SetGpuPrice.UserErrors)

			startWithEnv(t, append([]string{"GPUNEX_TOKEN=" + agentToken}, agentEnv...), agentBin, append([]string{"--server", url, "--data-dir", t.TempDir(),
				"--simulate", "1xH100", "--hostname", "rent-host"}, agentExtra...)...)

			customer := srv.NewAPIClient(t, "")
			var li struct{ LogIn struct{ Token *string } }
			customer.MustDo(&li, `mutation { logIn(input: {email: "customer@gpunex.demo", password: "gpunex-demo"}) { token } }`, nil)
			customer.Token = *li.LogIn.Token

			// Listed once its registration benchmark passed (the demo's
			// own agents are off, so it is the only one).
			var listingID string
			await.True(t, func() bool {
				for _, l := range listings(t, customer) {
					if l.Simulated && l.GpuCount == 1 {
						listingID = l.ID
						return true
					}
				}
				return false
			}, "the agent's GPU is listed")

			var started struct {
				StartRental struct {
					Rental     *struct{ ID, State string }
					UserErrors []struct{ Field, Message, Code string }
				}
			}
			customer.MustDo(&started, `mutation($l: ID!, $image: String!) { startRental(input: {listingId: $l, gpuCount: 1, image: $image,
  command: ["sh", "-c", "echo line 1; echo line 2; echo line 3; exec sleep 120"]}) { rental { id state } userErrors { field message code } } }`,
				map[string]any{"l": listingID, "image": image})
			require.Empty(t, started.StartRental.UserErrors)
			rentalID := started.StartRental.Rental.ID

			ws, _, err := srv.DialWS(t, nil)
			require.NoError(t, err)
			ws.Init(map[string]any{"authorization": "Bearer " + customer.Token})
			ws.Subscribe("1", `subscription($id: ID) { rentalUpdated(id: $id) { id state logTail exitCode } }`, map[string]any{"id": rentalID})
			type rental struct {
				ID, State string
				LogTail   *string
				ExitCode  *int
			}
			until := func(what string, ok func(r rental) bool) rental {
				t.Helper()
				deadline := time.Now().Add(60 * time.Second)
				for time.Now().Before(deadline) {
					m := ws.MustRead(time.Until(deadline))
					require.Equal(t, "next", m.Type, "%s", m.Payload)
					var ev struct {
						Data struct{ RentalUpdated rental }
					}
					require.NoError(t, json.Unmarshal(m.Payload, &ev), "%s", m.Payload)
					if ok(ev.Data.RentalUpdated) {
						return ev.Data.RentalUpdated
					}
				}
				t.Fatalf("no rentalUpdated event: %s", what)
				return rental{}
			}
			until("the job runs and its output reaches the customer", func(r rental) bool {
				return r.State == "RUNNING" && r.LogTail != nil && strings.Contains(*r.LogTail, "line 1\nline 2\nline 3\n")
			})
			// jobContainers are the engine's containers holding the rented
			// GPU (other tests share the engine).
			var mp struct {
				MyProvider struct{ Rentals []struct{ GpuUuids []string } }
			}
			provider.MustDo(&mp, `{ myProvider { rentals { gpuUuids } } }`, nil)
			require.NotEmpty(t, mp.MyProvider.Rentals)
			gpuUUID := mp.MyProvider.Rentals[0].GpuUuids[0]
			jobContainers := func() int {
				res, err := engine.ContainerList(context.Background(), client.ContainerListOptions{All: true,
					Filters: make(client.Filters).Add("label", job.LabelManaged+"=true")})
				require.NoError(t, err)
				n := 0
				for _, c := range res.Items {
					if strings.Contains(c.Labels[job.LabelGPUs], gpuUUID) {
						n++
					}
				}
				return n
			}
			if engine != nil {
				require.Positive(t, jobContainers(), "the job runs in a real container")
			}
			require.Empty(t, listings(t, customer), "the rented GPU is off the marketplace")

			var stopped struct {
				StopRental struct {
					UserErrors []struct{ Field, Message string }
				}
			}
			customer.MustDo(&stopped, `mutation($id: ID!) { stopRental(id: $id) { userErrors { field message } } }`, map[string]any{"id": rentalID})
			require.Empty(t, stopped.StopRental.UserErrors)
			end := until("the rental is stopped", func(r rental) bool { return r.State == "STOPPED" })
			require.NotNil(t, end.LogTail)
			require.Contains(t, *end.LogTail, "line 3")

			await.True(t, func() bool { return len(listings(t, customer)) == 1 },
				"the GPU is back on the marketplace")
			if engine != nil {
				await.True(t, func() bool { return jobContainers() == 0 },
					"the stopped job's container is removed")
			}
		})
	}
}
