package demo_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/demo"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// world is the demo world over a test server's services.
func world(t *testing.T, srv *platformtest.Server) demo.World {
	t.Helper()
	return demo.World{
		Auth:        srv.Platform.Auth,
		Providers:   srv.Platform.Providers,
		Onboarding:  srv.Platform.Onboarding,
		Fleet:       srv.Platform.Fleet,
		Bench:       srv.Platform.Bench,
		Pricing:     srv.Platform.Pricing,
		Market:      srv.Platform.Market,
		Billing:     srv.Platform.Billing,
		Reliability: srv.Platform.Reliability,
		// No demo rentals unless a test asks for them.
		Rentals: demo.Pace{Every: time.Hour},
		DataDir: t.TempDir(),
		Logger:  testLogger(),
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
			{"the Frankfurt datacenter", "frankfurt@gpunex.demo", ptr("APPROVED")},
			{"the São Paulo host", "saopaulo@gpunex.demo", ptr("APPROVED")},
			{"the Mumbai lab", "mumbai@gpunex.demo", ptr("APPROVED")},
			{"the Porto host", "porto@gpunex.demo", ptr("APPROVED")},
			{"the Madrid home", "madrid@gpunex.demo", ptr("APPROVED")},
			{"the Ashburn host", "virginia@gpunex.demo", ptr("APPROVED")},
			{"the customer", "customer@gpunex.demo", nil},
			{"the second customer", "research@gpunex.demo", nil},
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

		// The demo providers have a history: three weeks of earnings,
		// each paid out the Monday after; the customers have funds.
		var money struct {
			MyProvider struct {
				PayoutMethod struct{ Schedule, Kind, SolanaAddress string }
				Payouts      []struct{ State, Amount string }
				Earnings     struct {
					History []struct{ Net string }
				}
			}
		}
		now := time.Now().UTC()
		logIn(t, srv, "provider@gpunex.demo").MustDo(&money, `query($from: DateTime!, $to: DateTime!) { myProvider {
			payoutMethod { schedule kind solanaAddress } payouts { state amount }
			earnings { history(from: $from, to: $to, groupBy: WEEK) { net } } } }`,
			map[string]any{"from": now.AddDate(0, 0, -28).Format(time.RFC3339), "to": now.Format(time.RFC3339)})
		require.Equal(t, []string{"WEEKLY", "SOLANA"}, []string{money.MyProvider.PayoutMethod.Schedule, money.MyProvider.PayoutMethod.Kind})
		require.Len(t, money.MyProvider.Payouts, demo.HistoryWeeks, "seeding twice pays each week once")
		weeks := 0
		for _, p := range money.MyProvider.Payouts {
			require.Equal(t, "PAID", p.State)
		}
		for _, h := range money.MyProvider.Earnings.History {
			if h.Net != "0.000000" {
				weeks++
			}
		}
		require.Equal(t, demo.HistoryWeeks, weeks, "%+v", money.MyProvider.Earnings.History)
		var funds struct{ MyFunds struct{ Balance string } }
		logIn(t, srv, "customer@gpunex.demo").MustDo(&funds, `{ myFunds { balance } }`, nil)
		require.Equal(t, demo.OpeningBalance.String(), funds.MyFunds.Balance)
	})
}

// runAgents runs w.RunAgents until the returned func (also a cleanup).
func runAgents(t *testing.T, w demo.World, srv *platformtest.Server) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.RunAgents(ctx, srv.URL)
	}()
	stop := func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return stop
}

func TestAgentsBringTheDemoProvidersMachinesOnline(t *testing.T) {
	t.Parallel()
	opts := platformtest.Options{Fleet: fleet.Config{Interval: 200 * time.Millisecond}}
	platformtest.Each(t, opts, func(t *testing.T, srv *platformtest.Server) {
		w := world(t, srv)
		require.NoError(t, w.Seed(context.Background()))
		runAgents(t, w, srv)

		provider := logIn(t, srv, "provider@gpunex.demo")
		type machine struct {
			Hostname string
			Status   string
			Gpus     []struct{ Name string }
		}
		var machines []machine
		await.True(t, func() bool {
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
		}, "the two demo machines did not come online: %+v", machines)
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
		await.True(t, func() bool {
			var out struct {
				MyProvider struct{ Benchmarks []machineBench }
			}
			provider.MustDo(&out, `{ myProvider { benchmarks { hostname latestRun { reason network { outcome } storage { outcome } }
			  gpus { listing guidance { code } history { outcome error } } } } }`, nil)
			bench = out.MyProvider.Benchmarks
			live := 0
			for _, m := range bench {
				// The run and its GPUs' results: the run's state can be
				// read before all its GPUs' results are.
				stored := len(m.Gpus) > 0
				for _, g := range m.Gpus {
					stored = stored && len(g.History) > 14
				}
				if m.LatestRun != nil && m.LatestRun.Reason == "REGISTRATION" && stored {
					live++
				}
			}
			return live == 2
		}, "the demo machines' registration benchmarks did not complete: %+v", await.Show(func() string { return fmt.Sprintf("%+v", bench) }))
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

type listing struct {
	ModelKey     string
	GpuCount     int
	PricePerHour string
	Tier         string
	Simulated    bool
	Location     struct{ City, Country string }
	CPUCores     *int
	RAMBytes     *float64
	DiskBytes    *float64
}

const marketplaceQuery = `query($f: MarketplaceFilter, $s: MarketplaceSort) { marketplace(filter: $f, sort: $s, first: 100) {
  edges { node { modelKey gpuCount pricePerHour tier simulated location { city country } cpuCores ramBytes diskBytes } } } }`

func marketplace(t *testing.T, c *platformtest.Client, vars map[string]any) []listing {
	t.Helper()
	var out struct {
		Marketplace struct{ Edges []struct{ Node listing } }
	}
	c.MustDo(&out, marketplaceQuery, vars)
	ls := make([]listing, len(out.Marketplace.Edges))
	for i, e := range out.Marketplace.Edges {
		ls[i] = e.Node
	}
	return ls
}

func TestTheDemoMarketplaceListsSeveralRegionsTiersAndPrices(t *testing.T) {
	t.Parallel()
	// Agents heartbeat in whole seconds: with a shorter interval the
	// machines would flap offline, which interrupts rentals.
	opts := platformtest.Options{Fleet: fleet.Config{Interval: time.Second}}
	platformtest.Each(t, opts, func(t *testing.T, srv *platformtest.Server) {
		w := world(t, srv)
		require.NoError(t, w.Seed(context.Background()))
		runAgents(t, w, srv)

		// Anyone may browse: every demo machine's listed GPUs, once online.
		anyone := srv.NewAPIClient(t, "")
		type key struct{ City, Model, Tier, Price string }
		want := map[key]int{
			{"Lisbon", "H100_SXM_80GB", "ENTERPRISE", "2.490000"}:    3, // the hot one is delisted
			{"Lisbon", "L4_24GB", "ENTERPRISE", "0.390000"}:          2,
			{"Frankfurt", "A100_SXM_80GB", "ENTERPRISE", "1.690000"}: 4,
			{"Frankfurt", "H100_SXM_80GB", "ENTERPRISE", "2.890000"}: 2,
			{"São Paulo", "RTX_4090_24GB", "COMMUNITY", "0.340000"}:  2,
			{"Mumbai", "L40S_48GB", "COMMUNITY", "0.790000"}:         2,
			{"Porto", "H100_SXM_80GB", "COMMUNITY", "2.290000"}:      2,
			{"Madrid", "L4_24GB", "COMMUNITY", "0.450000"}:           2,
			{"Ashburn", "L4_24GB", "COMMUNITY", "0.350000"}:          2,
			{"Ashburn", "H100_SXM_80GB", "COMMUNITY", "2.190000"}:    2,
		}
		got := map[key]int{}
		await.True(t, func() bool {
			got = map[key]int{}
			for _, l := range marketplace(t, anyone, nil) {
				require.True(t, l.Simulated)
				// The simulated agents report their hosts (issue 26).
				require.NotNil(t, l.CPUCores, "%s in %s: CPU cores", l.ModelKey, l.Location.City)
				require.NotNil(t, l.RAMBytes)
				require.NotNil(t, l.DiskBytes)
				got[key{l.Location.City, l.ModelKey, l.Tier, l.PricePerHour}] += l.GpuCount
			}
			return len(got) == len(want)
		}, "the demo listings did not all appear: %v", got)
		require.Equal(t, want, got)

		// The same model at two providers: the cheaper first by price.
		h100 := marketplace(t, anyone, map[string]any{"f": map[string]any{"model": "H100_SXM_80GB"}, "s": "PRICE"})
		require.Len(t, h100, 4)
		var cities []string
		for _, l := range h100 {
			cities = append(cities, l.Location.City)
		}
		require.Equal(t, []string{"Ashburn", "Porto", "Lisbon", "Frankfurt"}, cities)
		community := marketplace(t, anyone, map[string]any{"f": map[string]any{"tier": "COMMUNITY"}})
		require.Len(t, community, 6)

		// Price advice differs by model and region and says why, from
		// the demo's market history: H100s are scarce in Europe (advice
		// above the market's median), L4s plentiful (below it).
		provider := logIn(t, srv, "provider@gpunex.demo")
		require.NoError(t, srv.Platform.Market.Refresh(context.Background()))
		type advice struct {
			PricingRecommendation struct {
				Basis  string
				Market *struct {
					Region struct{ Level string }
					P50    string
				}
				Demand      struct{ Fitted bool }
				Recommended struct{ PricePerHour string }
				Reasons     []struct{ Code string }
			}
		}
		codes := func(a advice) map[string]bool {
			out := map[string]bool{}
			for _, r := range a.PricingRecommendation.Reasons {
				out[r.Code] = true
			}
			return out
		}
		const adviceQuery = `query($m: String!) { pricingRecommendation(model: $m) { basis market { region { level } p50 }
			demand { fitted } recommended { pricePerHour } reasons { code } } }`
		var h100Advice, l4Advice advice
		provider.MustDo(&h100Advice, adviceQuery, map[string]any{"m": "H100_SXM_80GB"})
		provider.MustDo(&l4Advice, adviceQuery, map[string]any{"m": "L4_24GB"})
		usdc := func(s string) models.USDC {
			v, err := models.ParseUSDC(s)
			require.NoError(t, err)
			return v
		}
		h, l := h100Advice.PricingRecommendation, l4Advice.PricingRecommendation
		require.NotNil(t, h.Market)
		require.NotNil(t, l.Market)
		require.Equal(t, []string{"CONTINENT", "WORLD"}, []string{h.Market.Region.Level, l.Market.Region.Level}, "Europe has H100s of two other providers, but not L4s")
		require.True(t, h.Demand.Fitted && l.Demand.Fitted, "the history spans several price bands")
		require.Greater(t, usdc(h.Recommended.PricePerHour), usdc(h.Market.P50))
		require.Less(t, usdc(l.Recommended.PricePerHour), usdc(l.Market.P50))
		require.True(t, codes(h100Advice)["SUPPLY_SCARCE"] && codes(h100Advice)["MARKET_WIDENED"], "%v", codes(h100Advice))
		require.True(t, codes(l4Advice)["SUPPLY_GLUT"], "%v", codes(l4Advice))

		// Reliability differs by provider, and says why: Lisbon's outage,
		// interrupted job and throttled H100; São Paulo's three home-link
		// outages; Frankfurt's clean month.
		type rel struct {
			MyProvider struct {
				Reliability struct {
					Score  int
					Events []struct{ Kind string }
				}
			}
		}
		reliabilityOf := func(email string) (int, map[string]int) {
			var r rel
			logIn(t, srv, email).MustDo(&r, `{ myProvider { reliability { score events { kind } } } }`, nil)
			kinds := map[string]int{}
			for _, e := range r.MyProvider.Reliability.Events {
				kinds[e.Kind]++
			}
			return r.MyProvider.Reliability.Score, kinds
		}
		var lisbon, frankfurt, saopaulo int
		var lisbonWhy, saopauloWhy map[string]int
		await.True(t, func() bool {
			lisbon, lisbonWhy = reliabilityOf("provider@gpunex.demo")
			return lisbonWhy["BENCHMARK_DEGRADED"] > 0
		}, "the throttled H100's benchmarks reach reliability")
		frankfurt, _ = reliabilityOf("frankfurt@gpunex.demo")
		saopaulo, saopauloWhy = reliabilityOf("saopaulo@gpunex.demo")
		require.Greater(t, frankfurt, lisbon)
		require.Greater(t, frankfurt, saopaulo)
		require.Equal(t, 1, lisbonWhy["OUTAGE"])
		require.Equal(t, 1, lisbonWhy["JOB_INTERRUPTED"])
		require.Equal(t, 3, saopauloWhy["OUTAGE"])

		// The score's trend has the replayed month, a point a day: Lisbon's
		// dips on the day of its outage and interrupted job (five days
		// ago), and São Paulo's on its outage of eight days ago.
		for _, c := range []struct {
			email   string
			daysAgo int
		}{{"provider@gpunex.demo", 5}, {"saopaulo@gpunex.demo", 8}} {
			ctx := context.Background()
			u, err := srv.Platform.Auth.UserByEmail(ctx, c.email)
			require.NoError(t, err)
			prov, err := srv.Platform.Providers.ForUser(ctx, u.ID)
			require.NoError(t, err)
			sum, err := srv.Platform.Reliability.Provider(ctx, prov.ID)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(sum.Trend), 28, "%s: a month of daily points", c.email)
			byDay := map[time.Time]int{}
			for _, p := range sum.Trend {
				byDay[p.Day.UTC()] = p.Score
			}
			outage := time.Now().UTC().Add(-time.Duration(c.daysAgo) * 24 * time.Hour).Truncate(24 * time.Hour)
			before, ok := byDay[outage.Add(-24*time.Hour)]
			require.True(t, ok, "%s: %v", c.email, sum.Trend)
			on, ok := byDay[outage]
			require.True(t, ok, "%s: %v", c.email, sum.Trend)
			require.Less(t, on, before, "%s: the outage's day scores lower than the day before: %v", c.email, sum.Trend)
		}

		// Seeding again keeps the prices a provider changed.
		provider.MustDo(nil, `mutation { setGpuPrice(input: {model: "L4_24GB", pricePerHour: "0.420000"}) { userErrors { message } } }`, nil)
		require.NoError(t, w.Seed(context.Background()))
		l4 := marketplace(t, anyone, map[string]any{"f": map[string]any{"model": "L4_24GB"}})
		require.Len(t, l4, 3)
		for _, x := range l4 {
			if x.Location.City == "Lisbon" {
				require.Equal(t, "0.420000", x.PricePerHour)
			}
		}
	})
}

type rental struct {
	ID       string
	State    string
	Cause    *string
	ExitCode *int
	LogTail  *string
	Location struct{ City string }
}

func myRentals(t *testing.T, c *platformtest.Client) []rental {
	t.Helper()
	var out struct {
		MyRentals struct{ Edges []struct{ Node rental } }
	}
	c.MustDo(&out, `{ myRentals(first: 100) { edges { node { id state cause exitCode logTail location { city } } } } }`, nil)
	rs := make([]rental, len(out.MyRentals.Edges))
	for i, e := range out.MyRentals.Edges {
		rs[i] = e.Node
	}
	return rs
}

var demoCities = []string{"Lisbon", "Frankfurt", "São Paulo", "Mumbai", "Porto", "Madrid", "Ashburn"}

func TestTheDemoCustomersRentAndTheDemoAgentsRunTheJobs(t *testing.T) {
	t.Parallel()
	// Agents heartbeat in whole seconds: with a shorter interval the
	// machines would flap offline, which interrupts rentals.
	opts := platformtest.Options{Fleet: fleet.Config{Interval: time.Second}}
	platformtest.Each(t, opts, func(t *testing.T, srv *platformtest.Server) {
		w := world(t, srv)
		w.Rentals = demo.Pace{Every: 300 * time.Millisecond, Step: 100 * time.Millisecond, MinSteps: 20, MaxSteps: 25,
			StopChance: 0.2, MaxActive: 3, LogEvery: 200 * time.Millisecond}
		require.NoError(t, w.Seed(context.Background()))
		runAgents(t, w, srv)

		customers := []*platformtest.Client{logIn(t, srv, "customer@gpunex.demo"), logIn(t, srv, "research@gpunex.demo")}
		runningWithLines := map[string]bool{} // rentals seen RUNNING with printed lines
		var completed, stopped *rental
		var all []rental
		// The failure shows the last rentals seen.
		await.True(t, func() bool {
			all = nil
			for _, c := range customers {
				all = append(all, myRentals(t, c)...)
			}
			for _, r := range all {
				switch {
				case r.State == "RUNNING" && r.LogTail != nil && strings.Contains(*r.LogTail, "/2"):
					runningWithLines[r.ID] = true
				case r.State == "COMPLETED" && runningWithLines[r.ID]:
					completed = &r
				case r.State == "STOPPED" && runningWithLines[r.ID]:
					stopped = &r
				}
			}
			return completed != nil && stopped != nil
		}, "the demo customers' rentals did not run and end both ways: %s", await.Show(func() string { return show(all) }))
		for _, r := range all {
			require.Contains(t, demoCities, r.Location.City, "rented on a demo machine")
			require.NotEqual(t, "FAILED", r.State, "%s", show([]rental{r}))
		}
		// A job that ran to its end printed its last line and exited 0.
		require.Equal(t, 0, *completed.ExitCode)
		require.Regexp(t, `(saved checkpoint|benchmark done|all frames written)[^\n]*\n?$`, *completed.LogTail)

	})
}

func TestARestartEndsTheDemoRentalsAndFreesTheirGPUs(t *testing.T) {
	t.Parallel()
	// A machine is offline after three missed heartbeats: long enough
	// here for the agents to be back before.
	opts := platformtest.Options{Fleet: fleet.Config{Interval: 2 * time.Second}}
	platformtest.Each(t, opts, func(t *testing.T, srv *platformtest.Server) {
		ctx := context.Background()
		w := world(t, srv)
		require.NoError(t, w.Seed(ctx))
		stop := runAgents(t, w, srv)
		cust, err := srv.Platform.Auth.UserByEmail(ctx, "customer@gpunex.demo")
		require.NoError(t, err)
		var id int64
		await.True(t, func() bool {
			page, err := srv.Platform.Market.Marketplace(ctx, market.Filter{Model: ptr("L40S_48GB")}, market.SortRank, 1, "")
			require.NoError(t, err)
			if len(page.Listings) == 0 {
				return false
			}
			r, err := srv.Platform.Market.Start(ctx, cust.ID, market.StartInput{ListingID: &page.Listings[0].ID,
				GpuCount: 2, Image: "busybox", Command: []string{"sh", "-c", "echo long job; sleep 600"}})
			require.NoError(t, err)
			id = r.ID
			return true
		}, "the Mumbai L40S were not listed")
		await.True(t, func() bool {
			r, err := srv.Platform.Market.Rental(ctx, cust.ID, id)
			require.NoError(t, err)
			return r.State == models.RentalRunning
		}, "the job did not run")

		// The platform restarts: its in-process agents' simulated jobs end
		// with it. The agents say they go offline, which interrupts their
		// rentals; after a crash, the rentals left active end FAILED
		// (PLATFORM) when the agents are back. Either way, the GPUs are
		// free again.
		// Every demo provider's month is replayed before its agents run:
		// a snapshot a day (30) of each provider and machine (7 + 9).
		pastSnapshots := func() int64 {
			n, err := srv.Platform.DB.NewSelect().Model((*models.ReliabilitySnapshot)(nil)).
				Where("day < ?", time.Now().UTC().Truncate(24*time.Hour)).Count(ctx)
			require.NoError(t, err)
			return n
		}
		const past int64 = 30 * (7 + 9)
		await.True(t, func() bool { return pastSnapshots() == past }, "the replayed months")
		online := func() bool {
			n, err := srv.Platform.DB.NewSelect().Model((*models.Machine)(nil)).Where("status = ?", protocol.MachineOnline).Count(ctx)
			require.NoError(t, err)
			return n == 9
		}
		await.True(t, online, "the demo machines did not come online")
		stop()
		runAgents(t, w, srv)
		await.True(t, func() bool {
			r, err := srv.Platform.Market.Rental(ctx, cust.ID, id)
			require.NoError(t, err)
			return r.State == models.RentalInterrupted || (r.State == models.RentalFailed && *r.Cause == protocol.CausePlatform)
		}, "the rental did not end with its agent")
		await.True(t, func() bool {
			page, err := srv.Platform.Market.Marketplace(ctx, market.Filter{Model: ptr("L40S_48GB")}, market.SortRank, 1, "")
			require.NoError(t, err)
			return len(page.Listings) == 1 && page.Listings[0].GpuCount == 2
		}, "the GPUs did not return to the marketplace")
		// Once every agent is back, every provider's past was looked at
		// again: it is replayed once, the restart adds no snapshots.
		await.True(t, online, "the demo machines did not come back")
		require.Equal(t, past, pastSnapshots(), "the past is replayed once: the restart adds no snapshots")
	})
}

func ptr[T any](v T) *T { return &v }

func testLogger() *slog.Logger {
	if os.Getenv("DEMO_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// show prints rentals for a failure message.
func show(rs []rental) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "\n%s %s %s cause=%v exit=%v tail=%q", r.ID, r.Location.City, r.State, deref(r.Cause), deref(r.ExitCode), deref(r.LogTail))
	}
	return b.String()
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
