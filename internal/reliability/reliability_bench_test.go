package reliability

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/benchtest"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// The benchmarks' provider and its year. At the smallest size (benchtest, make
// test: every benchmark once, no target asserted) the fleet, the
// growth and the samples are the ...Short ones.
const (
	// benchMachines is the provider's fleet.
	benchMachines      = 1000
	benchMachinesShort = 20
	// eventsPerMachineYear is one history's events a machine: 20 a month,
	// of which 6 outages, 6 interrupted jobs and 8 degraded benchmarks
	// (eventKindOf).
	eventsPerMachineYear = 20 * 12
	// jobsPerMachineYear is one history's completed jobs a machine (no
	// events, only the accumulator), and benchmarks one a day.
	jobsPerMachineYear = 40 * 12
	historyDays        = 365
	// grownHistories is how many histories the grown year holds: ten
	// times the transitions, job outcomes and benchmarks, each history
	// spread over the same year (so ten times the events inside the
	// 30-day window too).
	grownHistories      = 10
	grownHistoriesShort = 2
	// readSamples is how many summaries of each world are timed.
	readSamples      = 100
	readSamplesShort = 2
	// readWarmup is how many summaries are read untimed before them.
	readWarmup      = 10
	readWarmupShort = 1
	// transitionSamples is how many machines change status per kind of
	// transition.
	transitionSamples      = 200
	transitionSamplesShort = 5
	// loadBatch is how many rows one SQLite INSERT carries.
	loadBatch = 500
)

// benchNow is when the benchmarks read: Monday 2026-11-02 12:00 UTC.
var benchNow = t0.Add(12 * time.Hour)

// yearStart is where the history begins.
var yearStart = benchNow.AddDate(-1, 0, 0)

// historyEnd is where it ends: before every machine's open interval
// (machineSince), so the accumulators' rows hold all of it.
var historyEnd = benchNow.Add(-52 * time.Hour)

// BenchmarkReliabilityRead measures issue 16's provider summary
// (Service.Provider) on each backend, for a provider of benchMachines
// machines (24/7, no schedule) with a year behind them: events
// (eventsPerMachineYear a machine: outages of 5 minutes to 4 hours,
// interrupted jobs, degraded benchmarks, spread over the year), the
// machines' accumulators as those transitions, jobs and daily benchmarks
// leave them, a maintenance window a month a machine, and 365 days of
// snapshots of the provider and every machine. Two such databases are
// seeded; the second grows tenfold (grownHistories histories over the
// same year: ten times the events inside the 30-day window as well as
// before it, and the accumulators recomputed). Summaries of both are then
// read alternately, so a load spike on the machine falls on both alike:
//
//   - p50_1x_ms, p95_1x_ms and p50_ms, p95_ms: a summary at 1x and at
//     10x, and p95_x_1x (target ≤ 1.2);
//   - events_p95_1x_ms, events_p95_ms, events_p95_x_1x: the same for the
//     summary's events statement alone (the one whose rows grow);
//   - sql/summary: the statements one summary runs; events: the rows at
//     10x; seed_s: how long the growth took.
//
// The events statement's plan is logged for both. PostgreSQL is VACUUM
// ANALYZEd after each load, as autovacuum would; SQLite is not ANALYZEd,
// as GPUnex never does there.
func BenchmarkReliabilityRead(b *testing.B) {
	for _, backend := range storetest.Backends {
		b.Run(backend, func(b *testing.B) {
			small := seedReliability(b, backend, true)
			large := seedReliability(b, backend, true)
			grown := large.grow(b, benchtest.Sized(grownHistories, grownHistoriesShort))
			b.Run("1x-vs-10x", func(b *testing.B) {
				stmts := max(checkRead(b, small), checkRead(b, large))
				var at1x, at10x readLatencies
				runtime.GC()
				b.ResetTimer()
				for range b.N {
					for i := range benchtest.Sized(readSamples, readSamplesShort) {
						first, second := small, large
						into1, into2 := &at1x, &at10x
						if i%2 == 1 {
							first, second, into1, into2 = large, small, &at10x, &at1x
						}
						if err := errors.Join(sampleRead(first, into1), sampleRead(second, into2)); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StopTimer()
				p95, p951x := percentile(at10x.summary, 0.95), percentile(at1x.summary, 0.95)
				ev95, ev951x := percentile(at10x.events, 0.95), percentile(at1x.events, 0.95)
				b.ReportMetric(ms(percentile(at1x.summary, 0.50)), "p50_1x_ms")
				b.ReportMetric(ms(p951x), "p95_1x_ms")
				b.ReportMetric(ms(percentile(at10x.summary, 0.50)), "p50_ms")
				b.ReportMetric(ms(p95), "p95_ms")
				b.ReportMetric(float64(p95)/float64(p951x), "p95_x_1x")
				b.ReportMetric(ms(ev951x), "events_p95_1x_ms")
				b.ReportMetric(ms(ev95), "events_p95_ms")
				b.ReportMetric(float64(ev95)/float64(ev951x), "events_p95_x_1x")
				b.ReportMetric(float64(stmts), "sql/summary")
				b.ReportMetric(float64(large.events), "events")
				b.ReportMetric(grown.Seconds(), "seed_s")
			})
		})
	}
}

// BenchmarkReliabilityTransition measures a status change (transition)
// on each backend, in a world of BenchmarkReliabilityRead at 1x (without
// its snapshots, which a transition never reads): the statements it runs
// besides BEGIN and COMMIT (target ≤ 3: the load, the row, the outage)
// and its time, for transitionSamples machines going ONLINE → OFFLINE,
// then the same coming back two hours later (OFFLINE → ONLINE, which
// records the outage).
func BenchmarkReliabilityTransition(b *testing.B) {
	for _, backend := range storetest.Backends {
		b.Run(backend, func(b *testing.B) {
			w := seedReliability(b, backend, false)
			b.Run("online-offline", func(b *testing.B) { benchTransition(b, w, protocol.MachineOnline, protocol.MachineOffline, 2) })
			b.Run("offline-online", func(b *testing.B) { benchTransition(b, w, protocol.MachineOffline, protocol.MachineOnline, 3) })
		})
	}
}

// readLatencies are a world's timed summaries and events statements.
type readLatencies struct{ summary, events []time.Duration }

// checkRead checks w's summary is whole (every machine, MaxEvents events,
// all inside the window, a month of trend), logs the events statement's
// plan, reads readWarmup summaries untimed (so neither world pays for a
// cold cache), and returns how many statements a summary runs.
func checkRead(b *testing.B, w *reliabilityWorld) int {
	var sum *Summary
	var err error
	stmts := w.queries.Record(func() { sum, err = w.svc.Provider(w.ctx, w.provider) })
	if err != nil {
		b.Fatal(err)
	}
	if len(sum.Machines) != len(w.machines) || len(sum.Events) != MaxEvents || len(sum.Trend) < 30 {
		b.Fatalf("the summary has %d machines, %d events, %d days of trend; want %d, %d, 30 or 31", len(sum.Machines), len(sum.Events),
			len(sum.Trend), len(w.machines), MaxEvents)
	}
	for _, e := range sum.Events {
		if !e.At.After(benchNow.Add(-Window)) {
			b.Fatalf("an event of %s is listed, outside the window", e.At)
		}
	}
	plan, err := w.dialect.explain(w.ctx, w.db, w.eventsQuery((*models.ReliabilityEvent)(nil)).String())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s, %d events: score %d; the events statement's plan:\n%s", w.backend, w.events, sum.Score, strings.Join(plan, "\n"))
	for range benchtest.Sized(readWarmup, readWarmupShort) {
		if _, err := w.svc.Provider(w.ctx, w.provider); err != nil {
			b.Fatal(err)
		}
	}
	return len(stmts)
}

// sampleRead times one summary of w and one events statement.
func sampleRead(w *reliabilityWorld, into *readLatencies) error {
	start := time.Now()
	if _, err := w.svc.Provider(w.ctx, w.provider); err != nil {
		return err
	}
	into.summary = append(into.summary, time.Since(start))
	var events []*models.ReliabilityEvent
	start = time.Now()
	if err := w.eventsQuery(&events).Scan(w.ctx); err != nil {
		return err
	}
	into.events = append(into.events, time.Since(start))
	return nil
}

// benchTransition moves transitionSamples machines in status from to
// status to, each at its own instant two hours after the previous
// kind's, counting each one's statements (it fails over want, only logs
// at the smallest size) and timing it.
func benchTransition(b *testing.B, w *reliabilityWorld, from, to protocol.MachineStatus, want int) {
	var lat []time.Duration
	worst := 0
	samples := benchtest.Sized(transitionSamples, transitionSamplesShort)
	b.ResetTimer()
	for range b.N {
		w.at = w.at.Add(2 * time.Hour)
		moved := 0
		for i, id := range w.machines {
			if w.status[i] != from || moved == samples {
				continue
			}
			at := w.at.Add(time.Duration(moved) * time.Second)
			var took time.Duration
			var err error
			stmts := w.queries.Record(func() {
				start := time.Now()
				err = w.svc.transition(w.ctx, id, to, at)
				took = time.Since(start)
			})
			if err != nil {
				b.Fatal(err)
			}
			stmts = slices.DeleteFunc(stmts, func(q string) bool { return q == "BEGIN" || q == "COMMIT" })
			if len(stmts) != want {
				benchtest.Sized(b.Fatalf, b.Logf)("%s → %s ran %d statements; want %d:\n%s", from, to, len(stmts), want, strings.Join(stmts, "\n"))
			}
			worst = max(worst, len(stmts))
			lat = append(lat, took)
			w.status[i] = to
			moved++
		}
		if moved < samples {
			b.Fatalf("only %d machines were %s", moved, from)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(worst), "sql/transition")
	b.ReportMetric(ms(percentile(lat, 0.50)), "transition_p50_ms")
	b.ReportMetric(ms(percentile(lat, 0.95)), "transition_p95_ms")
}

// reliabilityWorld is the provider, its machines and their history on
// one backend.
type reliabilityWorld struct {
	backend string
	ctx     context.Context
	db      *store.DB
	dialect loadDialect
	svc     *Service
	queries *storetest.Queries

	provider int64
	machines []int64
	// status is each machine's status now, as the transitions left it.
	status []protocol.MachineStatus
	// at is the last instant transitions happened at.
	at time.Time
	// histories is how many histories are laid down; events their rows.
	histories int
	events    int64
	seeded    time.Duration
}

// seedReliability lays down the provider, its machines and one history,
// with the year's snapshots if asked (a transition never reads them).
func seedReliability(b *testing.B, backend string, snapshots bool) *reliabilityWorld {
	b.Helper()
	began := time.Now()
	db := storetest.Open(b, backend)
	clk := clock.NewManual(benchNow)
	bs := bus.NewMemory()
	b.Cleanup(func() { _ = bs.Close() })
	w := &reliabilityWorld{backend: backend, ctx: b.Context(), db: db, dialect: loadDialects[backend], queries: storetest.CountQueries(db),
		svc: New(Deps{DB: db, Bus: bs, Clock: clk, Logger: slog.New(slog.DiscardHandler)}, Config{}), at: benchNow}
	if err := w.seedFleet(); err != nil {
		b.Fatalf("seed the %s fleet: %v", backend, err)
	}
	if snapshots {
		if err := w.seedSnapshots(); err != nil {
			b.Fatalf("seed the %s snapshots: %v", backend, err)
		}
	}
	w.grow(b, 1)
	w.seeded = time.Since(began)
	b.Logf("%s: %d machines and %d events (snapshots: %t) ready in %s", backend, len(w.machines), w.events, snapshots, w.seeded.Round(time.Millisecond))
	return w
}

// grow lays down histories up to n and returns how long that took.
func (w *reliabilityWorld) grow(b *testing.B, n int) time.Duration {
	b.Helper()
	began := time.Now()
	if err := w.addHistories(n); err != nil {
		b.Fatalf("lay down %s histories up to %d: %v", w.backend, n, err)
	}
	took := time.Since(began)
	if n > 1 {
		b.Logf("%s: grown to %d histories, %d events, in %s", w.backend, n, w.events, took.Round(time.Millisecond))
	}
	return took
}

// seedFleet seeds the provider (as setup_test's provider does) and its
// machines, registered before the year, each in the status machineSince
// says.
func (w *reliabilityWorld) seedFleet() error {
	ctx, at := w.ctx, yearStart.Add(-24*time.Hour)
	u := &models.User{Email: "fleet@example.com", Name: "Fleet", PasswordHash: "x", CreatedAt: at, UpdatedAt: at}
	if _, err := w.db.NewInsert().Model(u).Returning("id").Exec(ctx); err != nil {
		return err
	}
	app := &models.ProviderApplication{UserID: u.ID, Status: models.ApplicationApproved, FullName: "Fleet", Email: u.Email,
		CommitmentMonths: 12, SuggestionTier: models.TierCommunity, SuggestionReasons: []string{}, SubmittedAt: at, UpdatedAt: at}
	if _, err := w.db.NewInsert().Model(app).Returning("id").Exec(ctx); err != nil {
		return err
	}
	p := &models.Provider{UserID: u.ID, ApplicationID: app.ID, Tier: models.TierCommunity, Name: "Fleet", CreatedAt: at}
	if _, err := w.db.NewInsert().Model(p).Returning("id").Exec(ctx); err != nil {
		return err
	}
	w.provider = p.ID
	fleet := make([]*models.Machine, benchtest.Sized(benchMachines, benchMachinesShort))
	for i := range fleet {
		status, since := machineSince(i)
		fleet[i] = &models.Machine{ProviderID: p.ID, MachineID: fmt.Sprintf("fleet-%04d", i), Hostname: fmt.Sprintf("fleet-%04d", i), AgentVersion: "1",
			Status: status, StatusChangedAt: since, RegisteredAt: at, UpdatedAt: since}
		w.status = append(w.status, status)
	}
	if _, err := w.db.NewInsert().Model(&fleet).Returning("id").Exec(ctx); err != nil {
		return err
	}
	var windows []*models.MaintenanceWindow
	for i, m := range fleet {
		w.machines = append(w.machines, m.ID)
		for month := range 12 {
			from := yearStart.AddDate(0, month, 0).Add(time.Duration(i%600) * time.Hour)
			windows = append(windows, &models.MaintenanceWindow{ProviderID: p.ID, MachineID: &m.ID, StartsAt: from, EndsAt: from.Add(2 * time.Hour),
				CreatedAt: from.Add(-48 * time.Hour)})
		}
	}
	for lo := 0; lo < len(windows); lo += loadBatch {
		batch := windows[lo:min(lo+loadBatch, len(windows))]
		if _, err := w.db.NewInsert().Model(&batch).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// machineSince is machine i's status now and since when: one in fifty
// offline for the last three hours, the rest online since 1 to 48 hours
// ago (after historyEnd).
func machineSince(i int) (protocol.MachineStatus, time.Time) {
	if i%50 == 0 {
		return protocol.MachineOffline, benchNow.Add(-3 * time.Hour)
	}
	return protocol.MachineOnline, benchNow.Add(-time.Duration(i%48+1) * time.Hour)
}

// seedSnapshots lays down historyDays days of scores, the provider's
// (machine 0) and every machine's.
func (w *reliabilityWorld) seedSnapshots() error {
	today := benchNow.Truncate(24 * time.Hour)
	ids := append([]int64{0}, w.machines...)
	d, m := 0, 0
	return w.dialect.load(w.ctx, w.db, "reliability_snapshots", []string{"provider_id", "machine_id", "day", "score"}, func() []any {
		if m == len(ids) {
			return nil
		}
		row := []any{w.provider, ids[m], today.AddDate(0, 0, d-historyDays+1), int64(80 + (m*7+d)%19)}
		if d++; d == historyDays {
			d, m = 0, m+1
		}
		return row
	})
}

// histEvent is one event of a machine's history.
type histEvent struct {
	kind      models.ReliabilityEventKind
	at, ended time.Time
	magnitude float64
	detail    string
}

// history is machine i's history number h: eventsPerMachineYear events
// at random instants of the year before historyEnd, the same every time
// it is asked.
func history(i, h int) []histEvent {
	rng := rand.New(rand.NewPCG(uint64(i), uint64(h)))
	span := historyEnd.Sub(yearStart)
	out := make([]histEvent, 0, eventsPerMachineYear)
	for k := range eventsPerMachineYear {
		at := yearStart.Add(time.Duration(rng.Int64N(int64(span - 4*time.Hour))))
		switch k % 20 {
		case 0, 1, 2, 3, 4, 5:
			secs := math.Round(math.Exp(math.Log(300) + rng.Float64()*math.Log(48)))
			out = append(out, histEvent{kind: models.EventOutage, at: at, ended: at.Add(time.Duration(secs) * time.Second), magnitude: secs,
				detail: strconv.FormatInt(int64(secs), 10)})
		case 6, 7, 8, 9, 10, 11:
			out = append(out, histEvent{kind: models.EventJobInterrupted, at: at, magnitude: 1, detail: strconv.Itoa(i*100000 + h*1000 + k)})
		default:
			out = append(out, histEvent{kind: models.EventBenchmarkDegraded, at: at, magnitude: 0.05 + 0.3*rng.Float64(),
				detail: strconv.Itoa(k%8) + " THERMAL_THROTTLING"})
		}
	}
	return out
}

// keyOfEvent is the event's key as the service computes it: an outage's
// at its middle.
func keyOfEvent(e histEvent) float64 {
	if e.kind == models.EventOutage {
		return keyOf(e.magnitude, e.at.Add(e.ended.Sub(e.at)/2))
	}
	return keyOf(e.magnitude, e.at)
}

// addHistories lays down histories w.histories to n-1 of every machine
// as events, then rewrites the machines' accumulators as all n histories
// leave them.
func (w *reliabilityWorld) addHistories(n int) error {
	cols := []string{"machine_id", "provider_id", "kind", "at", "ended_at", "magnitude", "weight_key", "detail"}
	h, i := w.histories, 0
	var machine int64
	var pending []histEvent
	err := w.dialect.load(w.ctx, w.db, "reliability_events", cols, func() []any {
		for len(pending) == 0 {
			if h == n {
				return nil
			}
			pending, machine = history(i, h), w.machines[i]
			if i++; i == len(w.machines) {
				i, h = 0, h+1
			}
		}
		e := pending[0]
		pending = pending[1:]
		var ended any
		if e.kind == models.EventOutage {
			ended = e.ended
		}
		w.events++
		return []any{machine, w.provider, string(e.kind), e.at, ended, e.magnitude, keyOfEvent(e), e.detail}
	})
	if err != nil {
		return err
	}
	w.histories = n
	rows := make([]*models.ReliabilityMachine, len(w.machines))
	for i := range rows {
		rows[i] = accumulated(i, n)
		rows[i].MachineID, rows[i].ProviderID, rows[i].UpdatedAt = w.machines[i], w.provider, benchNow
	}
	if _, err := w.db.NewDelete().Model((*models.ReliabilityMachine)(nil)).Where("provider_id = ?", w.provider).Exec(w.ctx); err != nil {
		return err
	}
	for lo := 0; lo < len(rows); lo += loadBatch {
		batch := rows[lo:min(lo+loadBatch, len(rows))]
		if _, err := w.db.NewInsert().Model(&batch).Exec(w.ctx); err != nil {
			return err
		}
	}
	return w.dialect.settle(w.ctx, w.db)
}

// accumulated is machine i's row as n histories' transitions, job ends
// and benchmarks leave it at its last transition (machineSince): uptime
// over the year (24/7) less its outages, jobs (jobsPerMachineYear
// completed a history and the interrupted ones), a benchmark a day a
// history (0.97–1) and the degraded ones.
func accumulated(i, n int) *models.ReliabilityMachine {
	status, since := machineSince(i)
	den := integral(yearStart, since, since)
	lost := 0.0
	job, cons := acc{at: since}, acc{at: since}
	for h := range n {
		for _, e := range history(i, h) {
			switch e.kind {
			case models.EventOutage:
				lost += integral(e.at, e.ended, since)
			case models.EventJobInterrupted:
				job = job.add(0, 1, e.at)
			case models.EventBenchmarkDegraded:
				cons = cons.add(1-e.magnitude, 1, e.at)
			}
		}
		rng := rand.New(rand.NewPCG(uint64(i), uint64(h)+1<<32))
		span := historyEnd.Sub(yearStart)
		for range jobsPerMachineYear {
			job = job.add(1, 1, yearStart.Add(time.Duration(rng.Int64N(int64(span)))))
		}
		for d := range historyDays - 3 {
			cons = cons.add(0.97+0.03*rng.Float64(), 1, yearStart.AddDate(0, 0, d).Add(3*time.Hour))
		}
	}
	return &models.ReliabilityMachine{UpNum: den - lost, UpDen: den, UpAt: since, JobNum: job.num, JobDen: job.den, JobAt: job.at,
		ConsNum: cons.num, ConsDen: cons.den, ConsAt: cons.at, Status: status, Since: since}
}

// eventsQuery is Provider's events statement, as read.go builds it,
// into model.
func (w *reliabilityWorld) eventsQuery(model any) *bun.SelectQuery {
	return w.db.NewSelect().Model(model).Where("provider_id = ? AND at > ?", w.provider, benchNow.Add(-Window)).
		OrderExpr("weight_key DESC").Limit(MaxEvents)
}

// loadDialect is how a backend loads rows in bulk and shows a plan.
type loadDialect interface {
	// load inserts the rows next returns (until nil) into table's
	// columns.
	load(ctx context.Context, db *store.DB, table string, columns []string, next func() []any) error
	// settle readies the database for reads after a load.
	settle(ctx context.Context, db *store.DB) error
	// explain is query's plan, a line a row.
	explain(ctx context.Context, db *store.DB, query string) ([]string, error)
}

var loadDialects = map[string]loadDialect{"sqlite": sqliteLoad{}, "postgres": postgresLoad{}}

var (
	_ loadDialect = sqliteLoad{}
	_ loadDialect = postgresLoad{}
)

type sqliteLoad struct{}

// sqliteTime is how bun writes a time for SQLite, which compares times
// as text: rows loaded by hand must read the same.
func sqliteTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.999999-07:00") }

// load inserts loadBatch rows a statement in one transaction, on a
// connection given a page cache of 256 MiB for the load (the indexes of a
// table of millions of rows are written all over), put back after.
func (sqliteLoad) load(ctx context.Context, db *store.DB, table string, columns []string, next func() []any) (err error) {
	conn, err := db.DB.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var cache int64
	if err := conn.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA cache_size = -262144"); err != nil {
		return err
	}
	defer func() {
		if _, rerr := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", cache)); err == nil {
			err = rerr
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	indexes, err := dropIndexes(ctx, tx, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", table)
	if err != nil {
		return err
	}
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(columns)), ", ") + ")"
	prefix := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES "
	var full *sql.Stmt
	args := make([]any, 0, loadBatch*len(columns))
	flush := func(rows int) error {
		if rows == 0 {
			return nil
		}
		q := prefix + strings.TrimSuffix(strings.Repeat(row+", ", rows), ", ")
		if rows == loadBatch {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, q); err != nil {
					return err
				}
			}
			_, err := full.ExecContext(ctx, args...)
			return err
		}
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}
	rows := 0
	for r := next(); r != nil; r = next() {
		for _, v := range r {
			if t, ok := v.(time.Time); ok {
				v = sqliteTime(t)
			}
			args = append(args, v)
		}
		if rows++; rows == loadBatch {
			if err := flush(rows); err != nil {
				return err
			}
			rows, args = 0, args[:0]
		}
	}
	if err := flush(rows); err != nil {
		return err
	}
	for _, ddl := range indexes {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// dropIndexes drops the indexes list (a query of name and definition
// for a table) returns and returns their definitions: a load builds them
// again once, which costs far less than keeping them up row by row.
func dropIndexes(ctx context.Context, tx *sql.Tx, list, table string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, list, table)
	if err != nil {
		return nil, err
	}
	var names, ddls []string
	for rows.Next() {
		var name, ddl string
		if err := rows.Scan(&name, &ddl); err != nil {
			_ = rows.Close()
			return nil, err
		}
		names, ddls = append(names, name), append(ddls, ddl)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := tx.ExecContext(ctx, "DROP INDEX "+name); err != nil {
			return nil, err
		}
	}
	return ddls, nil
}

// settle checkpoints the write-ahead log, as a long-running database's
// would be; it does not ANALYZE, as GPUnex never does on SQLite.
func (sqliteLoad) settle(ctx context.Context, db *store.DB) error {
	_, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

func (sqliteLoad) explain(ctx context.Context, db *store.DB, query string) ([]string, error) {
	var rows []struct {
		ID      int64  `bun:"id"`
		Parent  int64  `bun:"parent"`
		NotUsed int64  `bun:"notused"`
		Detail  string `bun:"detail"`
	}
	if err := db.NewRaw("EXPLAIN QUERY PLAN "+query).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Detail
	}
	return out, nil
}

type postgresLoad struct{}

// load copies the rows (COPY FROM) in one transaction with the table's
// secondary indexes dropped and built again after (dropIndexes) and
// foreign keys unchecked (session_replication_role, as a restore does;
// the rows satisfy them by construction).
func (postgresLoad) load(ctx context.Context, db *store.DB, table string, columns []string, next func() []any) error {
	conn, err := db.DB.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		return err
	}
	indexes, err := dropIndexes(ctx, tx, `SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
		WHERE t.relname = $1 AND t.relnamespace = current_schema()::regnamespace AND NOT x.indisprimary`, table)
	if err != nil {
		return err
	}
	err = conn.Raw(func(dc any) error {
		_, err := dc.(*stdlib.Conn).Conn().CopyFrom(ctx, pgx.Identifier{table}, columns,
			pgx.CopyFromFunc(func() ([]any, error) { return next(), nil }))
		return err
	})
	if err != nil {
		return err
	}
	for _, ddl := range indexes {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// settle VACUUMs and ANALYZEs the tables loaded, as autovacuum would
// after so many rows, and checkpoints: the reads are timed on a database
// at rest, not during the load's aftermath.
func (postgresLoad) settle(ctx context.Context, db *store.DB) error {
	for _, q := range []string{"VACUUM ANALYZE reliability_events", "VACUUM ANALYZE reliability_machines", "VACUUM ANALYZE reliability_snapshots",
		"ANALYZE", "CHECKPOINT"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (postgresLoad) explain(ctx context.Context, db *store.DB, query string) ([]string, error) {
	var out []string
	err := db.NewRaw("EXPLAIN (ANALYZE, BUFFERS) "+query).Scan(ctx, &out)
	return out, err
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
