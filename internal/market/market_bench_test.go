package market

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/benchtest"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// spaPageSize is the SPA's marketplace page (frontend/src/marketplace,
// PAGE_SIZE).
const spaPageSize = 20

// searchSamples is how many times each page is asked per benchmark
// iteration, by the service and by hand, alternately (searchSamplesShort
// at the smallest size).
const (
	searchSamples      = 20
	searchSamplesShort = 2
)

// searchShape is one page the SPA asks for.
type searchShape struct {
	name   string
	filter Filter
	sort   Sort
	// second asks the page after the first, through its cursor.
	second bool
}

// filteredModel, filteredCountry and filteredMaxPrice narrow the filtered
// search to a few dozen listings of the full world's 20,000 (a few of the
// small world's).
var (
	filteredModel    = "H100_SXM_80GB"
	filteredCountry  = "DE" // the world's providers typed "Germany"
	filteredMaxPrice = models.USDC(basePrice(filteredModel) * 11 / 10)
)

var searchShapes = []searchShape{
	{name: "rank", sort: SortRank},
	{name: "model+country+maxprice-by-price", sort: SortPrice,
		filter: Filter{Model: &filteredModel, Country: &filteredCountry, MaxPricePerHour: &filteredMaxPrice}},
	{name: "performance-per-dollar", sort: SortPerformancePerDollar},
	{name: "rank-second-page", sort: SortRank, second: true},
}

// BenchmarkMarket measures issue 13's marketplace and rentals on each
// backend, in a world of fullWorld's listed GPUs, machines and providers
// (seedWorld; smallWorld at the smallest size, where no target is asserted):
//
//   - search-*: the pages the SPA asks (first page by RANK, filtered by
//     model, country and price by PRICE, by PERFORMANCE_PER_DOLLAR, the
//     second page by RANK through the first's cursor) through
//     Service.Marketplace, against a hand-written database/sql query
//     returning the same listings (handPage) in the same run, asked
//     alternately: p50 and p95 of each and their ratios, p50_x_hand and
//     p95_x_hand (target ≤ 1.5).
//   - statements: SQL statements per page of 10 and of 100, counted with
//     storetest's recording (target ≤ 3).
//   - start-contention: the world's customers' concurrent Starts for
//     its scarceGPUs free GPUs of scarceModel: exactly scarceGPUs
//     succeed, every other gets UNAVAILABLE in its userErrors, or the
//     benchmark fails (at either size); p50 and p99 of a start over
//     contentionRounds rounds' starts together (target p99 ≤ 300 ms on
//     PostgreSQL), with the lowest and highest of the rounds' own p99s,
//     after a round untimed (its p99 reported as cold_p99_ms).
func BenchmarkMarket(b *testing.B) {
	for _, backend := range storetest.Backends {
		b.Run(backend, func(b *testing.B) {
			w := seedWorld(b, backend)
			for _, shape := range searchShapes {
				b.Run("search-"+shape.name, func(b *testing.B) { benchSearch(b, w, shape) })
			}
			b.Run("statements", func(b *testing.B) { benchStatements(b, w) })
			b.Run("start-contention", func(b *testing.B) { benchStartContention(b, w) })
		})
	}
}

// benchSearch asks shape's page searchSamples times through the service
// and as many by hand, alternately, after checking both return the same
// listings in the same order.
func benchSearch(b *testing.B, w *world, shape searchShape) {
	var after string
	hq := handQuery{model: shape.filter.Model, country: shape.filter.Country, sort: shape.sort, limit: spaPageSize + 1}
	if shape.filter.MaxPricePerHour != nil {
		p := int64(*shape.filter.MaxPricePerHour)
		hq.maxPrice = &p
	}
	if shape.second {
		first, err := w.svc.Marketplace(w.ctx, shape.filter, shape.sort, spaPageSize, "")
		if err != nil {
			b.Fatal(err)
		}
		after = first.Cursors[len(first.Cursors)-1]
		_, keys, err := handPage(w.ctx, w.db.DB.DB, w.hand, w.clock.Now(), hq)
		if err != nil {
			b.Fatal(err)
		}
		hq.after = &keys[spaPageSize-1]
	}
	service := func() []string {
		page, err := w.svc.Marketplace(w.ctx, shape.filter, shape.sort, spaPageSize, after)
		if err != nil {
			b.Fatal(err)
		}
		return listingIDs(page.Listings)
	}
	hand := func() []string {
		ls, _, err := handPage(w.ctx, w.db.DB.DB, w.hand, w.clock.Now(), hq)
		if err != nil {
			b.Fatal(err)
		}
		return listingIDs(ls[:min(len(ls), spaPageSize)])
	}
	got, want := service(), hand()
	// The small world fills the unfiltered pages but not the filtered one.
	if fill := benchtest.Sized(spaPageSize, 1); len(want) < fill {
		b.Fatalf("the %s page has %d listings; the world should fill a page of %d", shape.name, len(want), fill)
	}
	if !slices.Equal(got, want) {
		b.Fatalf("the service's %s page differs from the hand-written query's:\nservice %v\nhand    %v", shape.name, got, want)
	}

	var svcLat, handLat []time.Duration
	b.ResetTimer()
	for range b.N {
		for range benchtest.Sized(searchSamples, searchSamplesShort) {
			start := time.Now()
			service()
			svcLat = append(svcLat, time.Since(start))
			start = time.Now()
			hand()
			handLat = append(handLat, time.Since(start))
		}
	}
	b.StopTimer()
	sp50, sp95 := percentile(svcLat, 0.50), percentile(svcLat, 0.95)
	hp50, hp95 := percentile(handLat, 0.50), percentile(handLat, 0.95)
	b.ReportMetric(ms(sp50), "p50_ms")
	b.ReportMetric(ms(sp95), "p95_ms")
	b.ReportMetric(ms(hp50), "hand_p50_ms")
	b.ReportMetric(ms(hp95), "hand_p95_ms")
	b.ReportMetric(float64(sp50)/float64(hp50), "p50_x_hand")
	b.ReportMetric(float64(sp95)/float64(hp95), "p95_x_hand")
}

// benchStatements counts the statements of pages of 10 and of 100, every
// shape, and fails over 3 (only logs at the smallest size).
func benchStatements(b *testing.B, w *world) {
	worst := map[int]int{}
	for range b.N {
		for _, size := range []int{10, MaxPageSize} {
			for _, shape := range searchShapes {
				after := ""
				if shape.second {
					first, err := w.svc.Marketplace(w.ctx, shape.filter, shape.sort, size, "")
					if err != nil {
						b.Fatal(err)
					}
					after = first.Cursors[len(first.Cursors)-1]
				}
				var err error
				stmts := w.queries.Record(func() { _, err = w.svc.Marketplace(w.ctx, shape.filter, shape.sort, size, after) })
				if err != nil {
					b.Fatal(err)
				}
				if len(stmts) > 3 {
					benchtest.Sized(b.Errorf, b.Logf)("a %s page of %d runs %d statements (target ≤ 3):\n%s", shape.name, size, len(stmts), strings.Join(stmts, "\n"))
				}
				worst[size] = max(worst[size], len(stmts))
			}
		}
	}
	b.ReportMetric(float64(worst[10]), "sql_first10/page")
	b.ReportMetric(float64(worst[MaxPageSize]), "sql_first100/page")
}

// benchStartContention frees the scarce GPUs, then starts a rental of one
// scarceModel GPU for each of the world's customers at once, each by the
// scheduler: a round untimed first (cold_p99_ms), then contentionRounds
// rounds per iteration.
func benchStartContention(b *testing.B, w *world) {
	var lat, p99s []time.Duration
	won, lost, rounds := 0, 0, 0
	// Alone first: one start after the other, each freed again, and the
	// scheduler's candidate query by itself, so the figure under
	// contention reads against what a start costs with nothing beside it.
	var alone, cands []time.Duration
	for _, customer := range w.customers[:min(10, len(w.customers))] {
		// Every scarce GPU free again (a run before this one, or the
		// previous start alone, holds them).
		if _, err := w.db.NewDelete().Model((*models.GpuAllocation)(nil)).Where("1 = 1").Exec(w.ctx); err != nil {
			b.Fatal(err)
		}
		t := time.Now()
		if _, _, err := w.svc.candidates(w.ctx, &StartInput{Model: ptr(scarceModel), GpuCount: 1}); err != nil {
			b.Fatal(err)
		}
		cands = append(cands, time.Since(t))
		t = time.Now()
		if _, err := w.svc.Start(w.ctx, customer, StartInput{Model: ptr(scarceModel), GpuCount: 1, Image: "docker.io/library/python:3.12",
			Command: []string{"python", "-V"}}); err != nil {
			b.Fatal(err)
		}
		alone = append(alone, time.Since(t))
	}
	// A round untimed, as a warm-up: the starts alone used one database
	// connection, the race opens the pool's others (a new PostgreSQL
	// backend reads its catalogue on its first statements), which a
	// running server has open. Checked like the others; its p99 is
	// reported apart.
	cold, _ := contend(b, w)
	b.ResetTimer()
	for range b.N * contentionRounds {
		rounds++
		roundLat, roundLost := contend(b, w)
		lat = append(lat, roundLat...)
		p99s = append(p99s, percentile(roundLat, 0.99))
		won += w.size.scarceGPUs
		lost += roundLost
	}
	b.StopTimer()
	b.ReportMetric(float64(won)/float64(rounds), "starts_won")
	b.ReportMetric(float64(lost)/float64(rounds), "starts_unavailable")
	b.ReportMetric(ms(percentile(lat, 0.50)), "start_p50_ms")
	b.ReportMetric(ms(percentile(lat, 0.99)), "start_p99_ms")
	b.ReportMetric(ms(slices.Min(p99s)), "start_p99_lowest_ms")
	b.ReportMetric(ms(slices.Max(p99s)), "start_p99_highest_ms")
	b.ReportMetric(ms(percentile(cold, 0.99)), "cold_p99_ms")
	b.ReportMetric(ms(percentile(alone, 0.50)), "alone_p50_ms")
	b.ReportMetric(ms(percentile(cands, 0.50)), "candidates_p50_ms")
}

// contend frees every scarce GPU (untimed), then races a start for each
// of the world's customers, released together: it fails the benchmark
// unless exactly scarceGPUs succeed and every other gets one UNAVAILABLE
// userError, with every scarce GPU allocated after. It returns each
// start's latency and how many were refused.
func contend(b *testing.B, w *world) ([]time.Duration, int) {
	b.StopTimer()
	if _, err := w.db.NewDelete().Model((*models.GpuAllocation)(nil)).Where("1 = 1").Exec(w.ctx); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var errs []string
	var lat []time.Duration
	won, lost := 0, 0
	gate := make(chan struct{})
	for _, customer := range w.customers {
		wg.Go(func() {
			<-gate
			start := time.Now()
			_, err := w.svc.Start(w.ctx, customer, StartInput{Model: ptr(scarceModel), GpuCount: 1, Image: "docker.io/library/python:3.12",
				Command: []string{"python", "-V"}})
			d := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, d)
			if err == nil {
				won++
				return
			}
			v, ok := fault.AsValidation(err)
			if !ok || len(v.Problems) != 1 || v.Problems[0].Code != fault.Unavailable {
				errs = append(errs, err.Error())
				return
			}
			lost++
		})
	}
	close(gate)
	wg.Wait()
	b.StopTimer()
	defer b.StartTimer()
	if len(errs) > 0 {
		b.Fatalf("%d of %d starts failed with something other than one UNAVAILABLE userError, e.g. %s", len(errs), len(w.customers), errs[0])
	}
	if scarce := w.size.scarceGPUs; won != scarce {
		b.Fatalf("%d of %d concurrent starts succeeded for %d free GPUs; want exactly %d", won, len(w.customers), scarce, scarce)
	}
	held, err := w.db.NewSelect().Model((*models.GpuAllocation)(nil)).Where("gpu_id IN (?)", bun.List(w.scarceGPUIDs)).Count(w.ctx)
	if err != nil {
		b.Fatal(err)
	}
	if held != int64(w.size.scarceGPUs) {
		b.Fatalf("%d scarce GPUs are allocated after the starts; want all %d", held, w.size.scarceGPUs)
	}
	return lat, lost
}

// contentionRounds is how many times benchStartContention makes its
// starts race per iteration: one round's p99 is the second-slowest of 200
// starts on a noisy machine (one make bench run gave 271 ms, the next
// 304), so the p99 is taken over three rounds' 600 starts together (the
// sixth-slowest), and each round's own p99 is reported for the spread.
const contentionRounds = 3

func listingIDs(ls []*Listing) []string {
	ids := make([]string, len(ls))
	for i, l := range ls {
		ids[i] = fmt.Sprintf("%d/%s", l.MachineID, l.ModelKey)
	}
	return ids
}

// percentile is the p-th of ds (nearest rank).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
