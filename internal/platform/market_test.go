package platform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// marketMachine registers an online machine of p with n listed H100s
// (score) through the fleet, and prices the model.
func marketMachine(t *testing.T, s *platformtest.Server, p *platformtest.Provider, uid string, n, score int, price int64) {
	t.Helper()
	ctx := context.Background()
	agent := &auth.Agent{TokenID: 1, ProviderID: p.ID}
	var inv []protocol.GpuInventory
	for i := range n {
		inv = append(inv, protocol.GpuInventory{UUID: fmt.Sprintf("GPU-%s-%d", uid, i), Index: i, Name: "NVIDIA H100 80GB HBM3", Simulated: true})
	}
	m, err := s.Platform.Fleet.Register(ctx, agent, protocol.RegisterMachineInput{MachineID: uid, Hostname: "host-" + uid, AgentVersion: "1", Gpus: inv})
	require.NoError(t, err)
	listMachine(t, s, p, m, score, price)
}

// listMachine brings p's registered machine m online with its GPUs listed
// (score), and prices the model.
func listMachine(t *testing.T, s *platformtest.Server, p *platformtest.Provider, m *models.Machine, score int, price int64) {
	t.Helper()
	ctx := context.Background()
	agent := &auth.Agent{TokenID: 1, ProviderID: p.ID}
	_, err := s.Platform.Fleet.Heartbeat(ctx, agent, protocol.HeartbeatInput{MachineID: m.MachineID})
	require.NoError(t, err)
	for _, g := range m.Gpus {
		// Each GPU measures score% of the H100's 989.5 tensor TFLOPS.
		sc, tflops := score, 989.5*float64(score)/100
		_, err := s.Platform.DB.NewInsert().Model(&models.GpuBenchStatus{GpuID: g.ID, MachineID: m.ID, ProviderID: p.ID, Listing: models.GpuListingListed,
			Score: &sc, Tflops: &tflops, ListingChangedAt: time.Now().UTC(), Shortfalls: []models.BenchmarkFigure{}, Guidance: []models.BenchmarkGuidance{}}).Exec(ctx)
		require.NoError(t, err)
	}
	_, err = s.Platform.DB.NewInsert().Model(&models.GpuPrice{ProviderID: p.ID, ModelKey: "H100_SXM_80GB", PricePerHour: models.USDC(price), UpdatedAt: time.Now().UTC()}).
		On("CONFLICT (provider_id, model_key) DO UPDATE").Set("price_micros = EXCLUDED.price_micros").Exec(ctx)
	require.NoError(t, err)
}

// deliverCommands sends machine uid's heartbeat through the API, as its agent
// does, and returns the kinds of the commands it delivered.
func deliverCommands(t *testing.T, agent *platformtest.Client, uid string) []string {
	t.Helper()
	var hb struct {
		Heartbeat struct {
			Commands []struct{ Kind string }
		}
	}
	agent.MustDo(&hb, protocol.HeartbeatMutation, map[string]any{"input": map[string]any{"machineId": uid, "gpus": []any{}}})
	var kinds []string
	for _, c := range hb.Heartbeat.Commands {
		kinds = append(kinds, c.Kind)
	}
	return kinds
}

func customer(t *testing.T, s *platformtest.Server, name string) *platformtest.Client {
	t.Helper()
	c := s.NewAPIClient(t, "")
	email := platformtest.UniqueEmail(name)
	c.SignUp(email, "correct horse battery", name)
	u, err := s.Platform.Auth.UserByEmail(context.Background(), email)
	require.NoError(t, err)
	_, err = s.Platform.Billing.Credit(context.Background(), u.ID, 1000*models.MicrosPerUSDC, "test deposit "+email)
	require.NoError(t, err)
	return c
}

const marketplaceQuery = `query M($filter: MarketplaceFilter, $sort: MarketplaceSort, $first: Int, $after: String) {
  marketplace(filter: $filter, sort: $sort, first: $first, after: $after) {
    edges { cursor node { id modelKey model { key } gpuCount vramGb pricePerHour performanceScore uptime tier commitmentMonths
      location { city } rank simulated } }
    pageInfo { hasNextPage endCursor } } }`

type listingNode struct {
	ID, ModelKey, PricePerHour, Tier string
	GpuCount, PerformanceScore       int
	CommitmentMonths                 int
	Location                         struct{ City *string }
	Rank                             float64
}

type marketplaceData struct {
	Marketplace struct {
		Edges []struct {
			Cursor string
			Node   listingNode
		}
		PageInfo struct {
			HasNextPage bool
			EndCursor   *string
		}
	}
}

const startRentalMutation = `mutation S($input: StartRentalInput!) {
  startRental(input: $input) { rental { id state pricePerHour image envNames gpuCount location { city } tier }
    userErrors { field message code } } }`

type rentalPayload struct {
	Rental *struct {
		ID, State, PricePerHour, Image string
		EnvNames                       []string
		GpuCount                       int
	}
	UserErrors []struct{ Field, Code, Message string }
}

func TestMarketplaceOverGraphQL(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "market")
		marketMachine(t, s, p, "market-machine-a", 2, 90, 2_000_000)
		marketMachine(t, s, p, "market-machine-b", 1, 60, 2_000_000)
		marketMachine(t, s, p, "market-machine-c", 3, 75, 2_000_000)
		require.NoError(t, s.Platform.Market.Refresh(context.Background()))
		anon := s.NewAPIClient(t, "")

		var all marketplaceData
		anon.MustDo(&all, marketplaceQuery, map[string]any{"sort": "PERFORMANCE_PER_DOLLAR"})
		require.Len(t, all.Marketplace.Edges, 3)
		scores := []int{}
		for _, e := range all.Marketplace.Edges {
			scores = append(scores, e.Node.PerformanceScore)
			require.Equal(t, "Lisbon", *e.Node.Location.City)
			require.Equal(t, 12, e.Node.CommitmentMonths)
			require.Equal(t, "2.000000", e.Node.PricePerHour)
		}
		require.Equal(t, []int{90, 75, 60}, scores)

		// Pages of one, every listing once.
		var seen []string
		var after any
		for {
			var page marketplaceData
			anon.MustDo(&page, marketplaceQuery, map[string]any{"first": 1, "after": after})
			for _, e := range page.Marketplace.Edges {
				seen = append(seen, e.Node.ID)
			}
			if !page.Marketplace.PageInfo.HasNextPage {
				break
			}
			after = *page.Marketplace.PageInfo.EndCursor
		}
		require.Len(t, seen, 3)

		var filtered marketplaceData
		anon.MustDo(&filtered, marketplaceQuery, map[string]any{"filter": map[string]any{"minGpus": 2, "region": "LISBON", "maxPricePerHour": "2.5"}})
		require.Len(t, filtered.Marketplace.Edges, 2)

		res := anon.Do(marketplaceQuery, map[string]any{"first": 101})
		require.Equal(t, []string{"BAD_USER_INPUT"}, res.Codes())
		require.Contains(t, res.Errors[0].Message, "first")
	})
}

func TestRentalLifecycleOverGraphQL(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "rent")
		marketMachine(t, s, p, "rent-machine-a", 2, 90, 1_500_000)
		c := customer(t, s, "customer")
		var list marketplaceData
		c.MustDo(&list, marketplaceQuery, nil)
		require.Len(t, list.Marketplace.Edges, 1)
		listing := list.Marketplace.Edges[0].Node

		// Bad input changes nothing.
		for _, tc := range []struct {
			desc  string
			input map[string]any
			field string
			code  string
		}{
			{"an image that does not parse", map[string]any{"listingId": listing.ID, "gpuCount": 1, "image": "UPPER/case::x"}, "input.image", "INVALID"},
			{"a bad env name", map[string]any{"listingId": listing.ID, "gpuCount": 1, "image": "python:3.12", "env": []any{map[string]any{"name": "A-B", "value": "1"}}}, "input.env.0.name", "INVALID"},
			{"more GPUs than any machine", map[string]any{"listingId": listing.ID, "gpuCount": 3, "image": "python:3.12"}, "input.gpuCount", "OUT_OF_RANGE"},
		} {
			var out struct{ StartRental rentalPayload }
			c.MustDo(&out, startRentalMutation, map[string]any{"input": tc.input})
			require.Nil(t, out.StartRental.Rental, tc.desc)
			require.Len(t, out.StartRental.UserErrors, 1, tc.desc)
			require.Equal(t, tc.field, out.StartRental.UserErrors[0].Field, tc.desc)
			require.Equal(t, tc.code, out.StartRental.UserErrors[0].Code, tc.desc)
		}
		res := s.NewAPIClient(t, "").Do(startRentalMutation, map[string]any{"input": map[string]any{"listingId": listing.ID, "gpuCount": 1, "image": "python:3.12"}})
		require.Equal(t, []string{"UNAUTHENTICATED"}, res.Codes())

		// The customer follows the rental live.
		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(map[string]any{"authorization": "Bearer " + c.Token})
		ws.Subscribe("1", `subscription { rentalUpdated { id state logTail cause } }`, nil)

		var started struct{ StartRental rentalPayload }
		c.MustDo(&started, startRentalMutation, map[string]any{"input": map[string]any{"listingId": listing.ID, "gpuCount": 1,
			"image": "docker.io/library/python:3.12", "env": []any{map[string]any{"name": "HF_TOKEN", "value": "s3cret"}}}})
		require.Empty(t, started.StartRental.UserErrors)
		rental := started.StartRental.Rental
		require.Equal(t, "STARTING", rental.State)
		require.Equal(t, "1.500000", rental.PricePerHour)
		require.Equal(t, []string{"HF_TOKEN"}, rental.EnvNames)

		type rentalEvent struct {
			ID, State string
			LogTail   *string
		}
		// next is the next change of a rental's state or log tail: a
		// metering tick also sends the rental (its charge moved), which
		// repeats the fields followed here and is passed over.
		last := map[string]rentalEvent{}
		next := func() rentalEvent {
			t.Helper()
			for {
				m := ws.MustRead(10 * time.Second)
				require.Equal(t, "next", m.Type, "payload: %s", m.Payload)
				var ev struct {
					Data struct{ RentalUpdated rentalEvent }
				}
				require.NoError(t, json.Unmarshal(m.Payload, &ev))
				r := ev.Data.RentalUpdated
				if prev, ok := last[r.ID]; ok && prev.State == r.State && reflect.DeepEqual(prev.LogTail, r.LogTail) {
					continue
				}
				last[r.ID] = r
				return r
			}
		}
		require.Equal(t, rentalEvent{ID: rental.ID, State: "STARTING"}, next())

		// The agent reports the job running, with its log tail.
		var rentalRow models.Rental
		require.NoError(t, s.Platform.DB.NewSelect().Model(&rentalRow).Where("id = ?", rental.ID).Scan(context.Background()))
		agentClient := s.NewAPIClient(t, p.AgentToken)
		var report struct {
			ReportJobStatus protocol.ReportJobStatusAnswer
		}
		// The heartbeat that delivers the job, as the agent gets it.
		deliverCommands(t, agentClient, "rent-machine-a")
		agentClient.MustDo(&report, protocol.ReportJobStatusMutation, map[string]any{"input": map[string]any{"machineId": "rent-machine-a", "jobId": rentalRow.JobID,
			"state": "RUNNING", "at": time.Now().UTC().Format(time.RFC3339Nano), "logTail": "epoch 1"}})
		require.True(t, report.ReportJobStatus.Accepted)
		require.False(t, report.ReportJobStatus.Stop)
		tail := "epoch 1"
		require.Equal(t, rentalEvent{ID: rental.ID, State: "RUNNING", LogTail: &tail}, next())

		// Someone else cannot see or stop it.
		other := customer(t, s, "other")
		res = other.Do(`mutation { stopRental(id: "`+rental.ID+`") { rental { id } userErrors { code } } }`, nil)
		require.Equal(t, []string{"NOT_FOUND"}, res.Codes())
		res = other.Do(`query { rental(id: "`+rental.ID+`") { id } }`, nil)
		require.Equal(t, []string{"NOT_FOUND"}, res.Codes())

		// The customer stops it; the agent is told, confirms, and it is STOPPED.
		var stopped struct {
			StopRental struct {
				Rental     struct{ State string }
				UserErrors []struct{ Code string }
			}
		}
		c.MustDo(&stopped, `mutation($id: ID!) { stopRental(id: $id) { rental { state } userErrors { code } } }`, map[string]any{"id": rental.ID})
		require.Equal(t, "STOPPING", stopped.StopRental.Rental.State)
		require.Equal(t, "STOPPING", next().State)
		agentClient.MustDo(&report, protocol.ReportJobStatusMutation, map[string]any{"input": map[string]any{"machineId": "rent-machine-a", "jobId": rentalRow.JobID,
			"state": "RUNNING", "at": time.Now().UTC().Format(time.RFC3339Nano)}})
		require.True(t, report.ReportJobStatus.Stop, "the agent stops the job")
		agentClient.MustDo(&report, protocol.ReportJobStatusMutation, map[string]any{"input": map[string]any{"machineId": "rent-machine-a", "jobId": rentalRow.JobID,
			"state": "COMPLETED", "exitCode": 137, "at": time.Now().UTC().Format(time.RFC3339Nano)}})
		require.Equal(t, "STOPPED", next().State)

		// A job the agent cannot start: the image does not pull.
		c.MustDo(&started, startRentalMutation, map[string]any{"input": map[string]any{"listingId": listing.ID, "gpuCount": 2, "image": "acme/missing:1"}})
		require.Empty(t, started.StartRental.UserErrors)
		require.Equal(t, "STARTING", next().State)
		var failedRow models.Rental
		require.NoError(t, s.Platform.DB.NewSelect().Model(&failedRow).Where("id = ?", started.StartRental.Rental.ID).Scan(context.Background()))
		deliverCommands(t, agentClient, "rent-machine-a")
		agentClient.MustDo(&report, protocol.ReportJobStatusMutation, map[string]any{"input": map[string]any{"machineId": "rent-machine-a", "jobId": failedRow.JobID,
			"state": "FAILED", "cause": "CUSTOMER", "message": "pull access denied", "at": time.Now().UTC().Format(time.RFC3339Nano)}})
		require.Equal(t, "FAILED", next().State)

		var mine struct {
			MyRentals struct {
				Edges []struct {
					Node struct{ ID, State, Cause string }
				}
			}
		}
		c.MustDo(&mine, `query { myRentals(first: 10) { edges { node { id state cause } } } }`, nil)
		require.Len(t, mine.MyRentals.Edges, 2)
		require.Equal(t, "FAILED", mine.MyRentals.Edges[0].Node.State)
		require.Equal(t, "CUSTOMER", mine.MyRentals.Edges[0].Node.Cause)
		require.Equal(t, "STOPPED", mine.MyRentals.Edges[1].Node.State)

		// The provider sees both, without the customer or the environment.
		var mp struct {
			MyProvider struct {
				Rentals []struct {
					State, Hostname string
					GpuUuids        []string
				}
			}
		}
		p.User.MustDo(&mp, `query { myProvider { rentals { state hostname gpuUuids } } }`, nil)
		require.Len(t, mp.MyProvider.Rentals, 2)
		require.Equal(t, "host-rent-machine-a", mp.MyProvider.Rentals[0].Hostname)
		require.Len(t, mp.MyProvider.Rentals[0].GpuUuids, 2)
	})
}

func TestRentalInterruptedByMachineGoingOfflineOverGraphQL(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{Fleet: fleet.Config{Interval: 100 * time.Millisecond}}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "flaky")
		marketMachine(t, s, p, "offline-machine-a", 1, 90, 1_000_000)
		// The machine beats until the rental started (a slow runner must
		// not see it offline before), then falls silent.
		beating := make(chan struct{})
		beaten := make(chan struct{})
		go func() {
			defer close(beaten)
			agent := &auth.Agent{TokenID: 1, ProviderID: p.ID}
			for {
				select {
				case <-beating:
					return
				case <-time.After(30 * time.Millisecond):
					_, _ = s.Platform.Fleet.Heartbeat(context.Background(), agent, protocol.HeartbeatInput{MachineID: "offline-machine-a"})
				}
			}
		}()
		c := customer(t, s, "customer")
		var list marketplaceData
		c.MustDo(&list, marketplaceQuery, nil)
		require.Len(t, list.Marketplace.Edges, 1)
		var started struct{ StartRental rentalPayload }
		c.MustDo(&started, startRentalMutation, map[string]any{"input": map[string]any{"listingId": list.Marketplace.Edges[0].Node.ID, "gpuCount": 1, "image": "python:3.12"}})
		close(beating)
		<-beaten
		require.Empty(t, started.StartRental.UserErrors)
		// No more heartbeats: after the grace the sweeper marks the machine
		// offline and the rental ends INTERRUPTED on the provider's side.
		await.True(t, func() bool {
			var out struct{ Rental struct{ State, Cause string } }
			c.MustDo(&out, `query($id: ID!) { rental(id: $id) { state cause } }`, map[string]any{"id": started.StartRental.Rental.ID})
			return out.Rental.State == "INTERRUPTED" && out.Rental.Cause == "PROVIDER"
		})
		n, err := s.Platform.DB.NewSelect().Model((*models.GpuAllocation)(nil)).Count(context.Background())
		require.NoError(t, err)
		require.Zero(t, n, "the GPU is free again")
	})
}
