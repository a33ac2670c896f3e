package market

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestRankFormula(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc string
		in   RankInput
		want float64
	}{
		{"at the median, nothing else (unscored: the prior)", RankInput{PriceMicros: 2, MedianMicros: 2, Reliability: ptr(0)}, 0.175},
		{"half the median scores the whole price weight", RankInput{PriceMicros: 1, MedianMicros: 2, Reliability: ptr(0)}, 0.35},
		{"a quarter of the median is capped", RankInput{PriceMicros: 1, MedianMicros: 4, Reliability: ptr(0)}, 0.35},
		{"everything at its best", RankInput{PriceMicros: 1, MedianMicros: 2, Performance: 100, Uptime: 1, Enterprise: true, CommitmentMonths: 24,
			Reliability: ptr(100)}, 1.0},
		{"performance and uptime", RankInput{PriceMicros: 4, MedianMicros: 2, Performance: 50, Uptime: 0.5, Reliability: ptr(0)}, 0.0875 + 0.125 + 0.025},
		{"commitment of 6 months", RankInput{PriceMicros: 2, MedianMicros: 2, CommitmentMonths: 6, Reliability: ptr(0)}, 0.175 + 0.025},
		{"a reliable provider", RankInput{PriceMicros: 2, MedianMicros: 2, Reliability: ptr(80)}, 0.175 + 0.16},
		{"not scored yet: the prior, 94", RankInput{PriceMicros: 2, MedianMicros: 2}, 0.175 + 0.188},
	} {
		require.InDelta(t, tc.want, Rank(tc.in), 1e-12, tc.desc)
	}
	require.InDelta(t, 1.0, WeightPrice+WeightPerformance+WeightUptime+WeightEnterprise+WeightCommitment+WeightReliability, 1e-12)
}

func TestMarketplaceListsOnlyWhatCanBeRentedNow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		now := b.clock.Now()
		p := b.provider(t, providerSpec{city: "Lisbon", country: "Portugal"})
		ok := b.machine(t, p, h100, 2, 90, 2_000_000)

		offline := b.machine(t, p, h100, 1, 90, 2_000_000)
		_, err := db.NewUpdate().Model((*models.Machine)(nil)).Set("status = ?", protocol.MachineOffline).Where("id = ?", offline.id).Exec(b.ctx)
		require.NoError(t, err)

		delisted := b.machine(t, p, h100, 1, 90, 2_000_000)
		_, err = db.NewUpdate().Model((*models.GpuBenchStatus)(nil)).Set("listing = ?", models.GpuListingDelisted).Where("machine_id = ?", delisted.id).Exec(b.ctx)
		require.NoError(t, err)

		unpriced := b.provider(t, providerSpec{})
		m := b.machine(t, unpriced, l4, 1, 90, 1)
		_, err = db.NewDelete().Model((*models.GpuPrice)(nil)).Where("provider_id = ?", unpriced.id).Exec(b.ctx)
		require.NoError(t, err)
		_ = m

		closed := b.provider(t, providerSpec{})
		b.machine(t, closed, h100, 1, 90, 2_000_000)
		_, err = db.NewInsert().Model(&models.ProviderSchedule{ProviderID: closed.id, Availability: models.Availability{Kind: models.AvailabilityWeekly,
			Windows: []*models.AvailabilityWindow{}}, OpenFrom: ptr(now.Add(time.Hour)), OpenUntil: ptr(now.Add(2 * time.Hour)), UpdatedAt: now}).Exec(b.ctx)
		require.NoError(t, err)

		open := b.provider(t, providerSpec{})
		inSchedule := b.machine(t, open, h100, 1, 90, 2_000_000)
		_, err = db.NewInsert().Model(&models.ProviderSchedule{ProviderID: open.id, Availability: models.Availability{Kind: models.AvailabilityWeekly,
			Windows: []*models.AvailabilityWindow{}}, OpenFrom: ptr(now.Add(-time.Hour)), OpenUntil: nil, UpdatedAt: now}).Exec(b.ctx)
		require.NoError(t, err)

		maint := b.provider(t, providerSpec{})
		b.machine(t, maint, h100, 1, 90, 2_000_000)
		_, err = db.NewInsert().Model(&models.MaintenanceWindow{ProviderID: maint.id, StartsAt: now.Add(-time.Minute), EndsAt: now.Add(time.Hour), CreatedAt: now}).Exec(b.ctx)
		require.NoError(t, err)

		got := b.list(t, Filter{}, SortRank)
		ids := map[int64]int{}
		for _, l := range got {
			ids[l.MachineID] = l.GpuCount
		}
		require.Equal(t, map[int64]int{ok.id: 2, inSchedule.id: 1}, ids, "only the online, listed, priced, scheduled GPUs outside maintenance")

		// A GPU allocated to a rental is not listed.
		customer := b.user(t, "customer")
		var listing *Listing
		for _, l := range got {
			if l.MachineID == ok.id {
				listing = l
			}
		}
		require.NotNil(t, listing)
		require.Equal(t, "Lisbon", *listing.Location.City, "the location of the application's first GPU entry")
		require.Equal(t, 80, *listing.VramGb)
		b.start(t, customer, listing, 1)
		for _, l := range b.list(t, Filter{}, SortRank) {
			if l.MachineID == ok.id {
				require.Equal(t, 1, l.GpuCount, "the allocated GPU is not listed")
			}
		}
	})
}

func TestMarketplaceFiltersSortsAndRanks(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		cheap := b.provider(t, providerSpec{city: "Lisbon", country: "Portugal", commitment: 3})
		ent := b.provider(t, providerSpec{tier: models.TierEnterprise, country: "Germany", commitment: 12})
		mid := b.provider(t, providerSpec{city: "Paris", country: "France", commitment: 6})
		a := b.machine(t, cheap, h100, 1, 50, 1_000_000) // cheapest, slow
		e := b.machine(t, ent, h100, 4, 95, 3_000_000)   // dear, fast, enterprise
		c := b.machine(t, mid, h100, 2, 80, 2_000_000)   // the median
		l := b.machine(t, mid, l4, 1, 70, 500_000)
		// Each GPU measures score% of its model's 989.5 (H100) or 121 (L4)
		// datasheet tensor TFLOPS.
		b.benchmark(t, a, 989.5, 494.75)
		b.benchmark(t, e, 989.5, 940.025, 940.025, 940.025, 940.025)
		b.benchmark(t, c, 989.5, 791.6, 791.6)
		b.benchmark(t, l, 121, 84.7)
		_, err := db.NewUpdate().Model((*models.ProviderMarketProfile)(nil)).Set("location_region = ?", "eu-central-1").Where("provider_id = ?", ent.id).Exec(b.ctx)
		require.NoError(t, err)
		require.NoError(t, b.svc.Refresh(b.ctx))
		_, err = db.NewUpdate().Model((*models.ProviderMarketProfile)(nil)).Set("location_region = ?", "eu-central-1").Where("provider_id = ?", ent.id).Exec(b.ctx)
		require.NoError(t, err)

		order := func(ls []*Listing) []int64 {
			var ids []int64
			for _, l := range ls {
				ids = append(ids, l.MachineID)
			}
			return ids
		}
		all := b.list(t, Filter{}, SortRank)
		require.Len(t, all, 4)
		for _, x := range all {
			uptime := 0.0
			if x.Uptime != nil {
				uptime = *x.Uptime
			}
			median := int64(2_000_000)
			if x.ModelKey == l4 {
				median = 500_000
			}
			want := Rank(RankInput{PriceMicros: int64(x.PricePerHour), MedianMicros: median, Performance: *x.PerformanceScore,
				Uptime: uptime, Enterprise: x.Tier == models.TierEnterprise, CommitmentMonths: x.CommitmentMonths, Reliability: x.ReliabilityScore})
			require.InDelta(t, want, x.Rank, 1e-9, "SQL rank of machine %d equals Rank", x.MachineID)
		}
		for i := 1; i < len(all); i++ {
			require.GreaterOrEqual(t, all[i-1].Rank, all[i].Rank)
		}
		require.Equal(t, []int64{e.id, a.id, c.id}, order(b.list(t, Filter{Model: ptr(h100)}, SortRank)),
			"enterprise, fast and committed beats cheap and slow, which beats the median")
		require.Equal(t, []int64{l.id, a.id, c.id, e.id}, order(b.list(t, Filter{}, SortPrice)))
		// Measured TFLOPS per USDC: a at 494.75, c 395.8, e 313.3, l
		// 169.4. The cheapest, the L4, is last: per USDC it does the least
		// work (by health score per USDC it was first).
		require.Equal(t, []int64{a.id, c.id, e.id, l.id}, order(b.list(t, Filter{}, SortPerformancePerDollar)))

		for _, tc := range []struct {
			desc string
			f    Filter
			want []int64
		}{
			{"model", Filter{Model: ptr(l4)}, []int64{l.id}},
			{"country by its ISO code (the provider typed a name)", Filter{Country: ptr("PT")}, []int64{a.id}},
			{"country by its ISO code, any case", Filter{Country: ptr("pt")}, []int64{a.id}},
			{"city as region", Filter{Region: ptr("paris")}, []int64{c.id, l.id}},
			{"datacenter region", Filter{Region: ptr("EU-CENTRAL-1")}, []int64{e.id}},
			{"VRAM", Filter{MinVramGb: ptr(48)}, []int64{e.id, a.id, c.id}},
			{"GPUs on one machine", Filter{MinGpus: ptr(2)}, []int64{e.id, c.id}},
			{"price", Filter{MaxPricePerHour: ptr(models.USDC(1_000_000))}, []int64{l.id, a.id}},
			{"performance", Filter{MinPerformance: ptr(80)}, []int64{e.id, c.id}},
			{"tier", Filter{Tier: ptr(models.TierEnterprise)}, []int64{e.id}},
			{"reliability: no score exists yet", Filter{MinReliability: ptr(0)}, nil},
		} {
			require.ElementsMatch(t, tc.want, order(b.list(t, tc.f, SortRank)), tc.desc)
		}

		// Pagination: every listing once, in order, whatever the page size.
		for _, sort := range []Sort{SortRank, SortPrice, SortPerformancePerDollar} {
			var paged []int64
			after := ""
			for {
				page, err := b.svc.Marketplace(b.ctx, Filter{}, sort, 1, after)
				require.NoError(t, err)
				paged = append(paged, order(page.Listings)...)
				if !page.HasNextPage {
					break
				}
				after = page.Cursors[len(page.Cursors)-1]
			}
			require.Equal(t, order(b.list(t, Filter{}, sort)), paged, "paging by %s", sort)
		}
		_, err = b.svc.Marketplace(b.ctx, Filter{}, SortRank, 101, "")
		require.Equal(t, fault.Invalid, fault.CodeOf(err))
		require.ErrorContains(t, err, "first")
		_, err = b.svc.Marketplace(b.ctx, Filter{}, SortPrice, 10, (&pageKey{sort: SortRank}).encode())
		require.Equal(t, fault.Invalid, fault.CodeOf(err), "a cursor of another sort")
	})
}

func TestMarketplacePageCostsAtMostFourStatements(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		queries := storetest.CountQueries(db)
		count := func() int {
			return queries.Count(func() {
				_, err := b.svc.Marketplace(context.Background(), Filter{}, SortRank, 100, "")
				require.NoError(t, err)
			})
		}
		p := b.provider(t, providerSpec{city: "Lisbon"})
		b.machine(t, p, h100, 1, 90, 1_000_000)
		require.LessOrEqual(t, count(), 4, "first need: check, materialise, page, its GPUs' benchmarks")
		for range 5 {
			q := b.provider(t, providerSpec{city: "Porto"})
			for range 3 {
				b.machine(t, q, h100, 4, 90, 1_000_000)
			}
		}
		require.NoError(t, b.svc.Refresh(b.ctx))
		require.Equal(t, 3, count(), "steady state: check, page and its GPUs' benchmarks, for 16 listings as for 1")
	})
}

// The provider's reliability score ranks its listings and steers the
// scheduler; minReliability keeps out providers under it and those not
// scored yet.
func TestReliabilityRanksFiltersAndSchedules(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		shaky, steady, fresh := b.provider(t, providerSpec{}), b.provider(t, providerSpec{}), b.provider(t, providerSpec{})
		sm := b.machine(t, shaky, h100, 1, 90, 2_000_000)
		tm := b.machine(t, steady, h100, 1, 90, 2_000_000)
		fm := b.machine(t, fresh, h100, 1, 90, 2_000_000)
		for p, score := range map[int64]int{shaky.id: 60, steady.id: 97} {
			_, err := db.NewInsert().Model(&models.ReliabilityProvider{ProviderID: p, Score: score, UpdatedAt: b.clock.Now()}).Exec(b.ctx)
			require.NoError(t, err)
		}
		order := func(ls []*Listing) []int64 {
			var out []int64
			for _, l := range ls {
				out = append(out, l.MachineID)
			}
			return out
		}
		all := b.list(t, Filter{}, SortRank)
		require.Equal(t, []int64{tm.id, fm.id, sm.id}, order(all), "97, then the unscored at the prior 94, then 60")
		require.Equal(t, 97, *all[0].ReliabilityScore)
		require.Nil(t, all[1].ReliabilityScore)
		require.Equal(t, []int64{tm.id}, order(b.list(t, Filter{MinReliability: ptr(90)}, SortRank)), "the unscored are left out")
		require.Equal(t, []int64{tm.id, sm.id}, order(b.list(t, Filter{MinReliability: ptr(0)}, SortRank)))

		// The scheduler rents the most reliable first.
		customer := b.user(t, "customer")
		r, err := b.svc.Start(b.ctx, customer, StartInput{Model: ptr(h100), GpuCount: 1, Image: "python:3.12"})
		require.NoError(t, err)
		require.Equal(t, tm.id, r.MachineID)
	})
}

// A provider approved after the marketplace was last asked is listed, and
// rented, with its location at once, not from the next refresh on: the
// page and the start see a provider newer than those whose profiles they
// made (ensureProfiles), and make its profile first.
func TestANewProvidersLocationShowsAtItsFirstPageAndStart(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		lisbon := b.provider(t, providerSpec{city: "Lisbon", country: "Portugal"})
		b.machine(t, lisbon, h100, 1, 90, 1_000_000)
		listed := b.list(t, Filter{}, SortRank)
		require.Len(t, listed, 1)
		require.Equal(t, ptr("Lisbon"), listed[0].Location.City)

		porto := b.provider(t, providerSpec{city: "Porto", country: "Portugal"})
		b.machine(t, porto, l4, 1, 90, 1_000_000)
		listed = b.list(t, Filter{Model: ptr(l4)}, SortRank)
		require.Len(t, listed, 1)
		require.Equal(t, ptr("Porto"), listed[0].Location.City, "listed with its location before any refresh")

		faro := b.provider(t, providerSpec{city: "Faro", country: "Portugal"})
		m := b.machine(t, faro, h100, 1, 90, 1_000_000)
		customer := b.user(t, "customer")
		r, err := b.svc.Start(b.ctx, customer, StartInput{ListingID: ptr(ListingID(m.id, h100)), GpuCount: 1, Image: "docker.io/library/python:3.12",
			Command: []string{"python", "-V"}})
		require.NoError(t, err)
		require.Equal(t, ptr("Faro"), r.Location.City, "the rental locks the new provider's location")
	})
}
