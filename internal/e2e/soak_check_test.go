package e2e_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpunex/gpunex/internal/await"
)

// soakCustomers is the SQL condition of the soak customers' rentals (r).
const soakCustomers = `r.customer_id IN (SELECT id FROM users WHERE email LIKE 'soak-customer-%')`

// settle stops the customers and every rental they left running, and
// waits until the platform has ended and billed them, every machine is
// online and every dashboard shows what the database holds.
func (s *soak) settle() {
	t := s.t
	s.stopCustomers()
	s.customersDone.Wait()
	ctx := context.Background()
	// Every rental still running is stopped by its customer, found in the
	// database: a start whose answer was lost (a replica killed under it)
	// is running all the same.
	var running []struct{ ID, Email string }
	await.True(t, func() bool {
		return s.db.NewRaw(`SELECT CAST(r.id AS TEXT) AS id, u.email FROM rentals r JOIN users u ON u.id = r.customer_id
			WHERE `+soakCustomers+` AND r.state IN ('STARTING', 'RUNNING')`).Scan(ctx, &running) == nil
	}, "the running rentals could not be read")
	for _, r := range running {
		c := s.byEmail[r.Email]
		var mine struct {
			MyRentals struct {
				Edges []struct{ Node struct{ ID, State string } }
			}
		}
		await.True(t, func() bool {
			return c.do(ctx, `{ myRentals(first: 100) { edges { node { id state } } } }`, nil).into(&mine) == nil
		}, "myRentals answered")
		for _, e := range mine.MyRentals.Edges {
			if e.Node.State == "STARTING" || e.Node.State == "RUNNING" {
				await.True(t, func() bool {
					a := c.do(ctx, `mutation($id: ID!) { stopRental(id: $id) { userErrors { field code } } }`, map[string]any{"id": e.Node.ID})
					return a.Err == nil && a.Status == 200 && len(a.Codes) == 0 // a userError: it had ended meanwhile
				}, "stopRental answered")
			}
		}
	}
	count := func(q string) int {
		var n int
		if err := s.db.NewRaw(q).Scan(ctx, &n); err != nil {
			return -1
		}
		return n
	}
	await.True(t, func() bool {
		return count(`SELECT COUNT(*) FROM rentals r WHERE `+soakCustomers+` AND r.state IN ('STARTING', 'RUNNING', 'STOPPING')`) == 0
	}, "the soak's rentals did not all end")
	await.True(t, func() bool {
		return count(`SELECT COUNT(*) FROM rental_meters m JOIN rentals r ON r.id = m.rental_id WHERE `+soakCustomers+` AND NOT m.closed`) == 0
	}, "the soak's meters did not all close")
	machines := len(s.providers) * s.cfg.AgentsPerProvider
	await.True(t, func() bool { return s.onlineCount() == machines }, "not every machine is online at the end")

	// Every dashboard comes to show what the database holds: one that
	// missed a change and was never resynchronised would not.
	began := time.Now()
	truth := map[string]map[string]string{} // provider's email → machine → status
	await.True(t, func() bool {
		var rows []struct {
			Email, MachineUID, Status string
		}
		if err := s.db.NewRaw(`SELECT u.email, m.machine_uid, m.status FROM machines m JOIN providers p ON p.id = m.provider_id
			JOIN users u ON u.id = p.user_id WHERE m.machine_uid LIKE 'soak-m%'`).Scan(ctx, &rows); err != nil {
			return false
		}
		clear(truth)
		for _, r := range rows {
			if truth[r.Email] == nil {
				truth[r.Email] = map[string]string{}
			}
			truth[r.Email][r.MachineUID] = r.Status
		}
		for i, d := range s.dashboards {
			if len(differs(d.view(), truth[s.providers[i%len(s.providers)].email])) > 0 {
				return false
			}
		}
		return true
	}, lazy(func() string {
		for i, d := range s.dashboards {
			if df := differs(d.view(), truth[s.providers[i%len(s.providers)].email]); len(df) > 0 {
				return fmt.Sprintf("dashboard %d shows otherwise than the database: %s", i, joinMax(df, 5))
			}
		}
		return "the dashboards do not all agree with the database"
	}))
	s.report.Dashboards.ConsistentAfterSeconds = time.Since(began).Seconds()
}

// check measures the run and checks the invariants through the database.
func (s *soak) check() {
	ctx := context.Background()
	inv := map[string]string{}
	s.report.Invariants = inv
	verdict := func(name string, problems []string) {
		if len(problems) == 0 {
			inv[name] = "ok"
			return
		}
		inv[name] = fmt.Sprintf("%d broken: %s", len(problems), joinMax(problems, 5))
	}
	rows := func(q string) []string {
		var out []string
		if err := s.db.NewRaw(q).Scan(ctx, &out); err != nil {
			return []string{"the check could not run: " + err.Error()}
		}
		return out
	}

	verdict("every ledger transaction sums to zero", rows(`SELECT CAST(transaction_id AS TEXT) FROM ledger_entries
		GROUP BY transaction_id HAVING SUM(amount_micros) <> 0`))
	verdict("every balance equals its entries", rows(`SELECT a.kind || ' ' || CAST(a.owner_id AS TEXT) FROM ledger_accounts a
		LEFT JOIN (SELECT account_id, SUM(amount_micros) AS total FROM ledger_entries GROUP BY account_id) e ON e.account_id = a.id
		WHERE a.balance_micros <> COALESCE(e.total, 0)`))

	// Every rental is charged for exactly the seconds the platform
	// observed it running, at its locked price: what its meter says and
	// what its customer's account was debited.
	var rentals []struct {
		ID, PriceMicros, GpuCount, ChargedMicros, Debited int64
		State                                             string
		Cause                                             *string
		StartedAt, EndedAt, BillableUntil                 *time.Time
		Closed                                            *bool
	}
	if err := s.db.NewRaw(`SELECT r.id, r.price_micros, r.gpu_count, r.state, r.cause, r.started_at, r.ended_at, r.billable_until,
		COALESCE(m.charged_micros, 0) AS charged_micros, m.closed,
		COALESCE((SELECT -SUM(e.amount_micros) FROM ledger_entries e JOIN ledger_transactions tx ON tx.id = e.transaction_id
			JOIN ledger_accounts a ON a.id = e.account_id WHERE tx.rental_id = r.id AND a.kind = 'CUSTOMER_FUNDS'), 0) AS debited
		FROM rentals r LEFT JOIN rental_meters m ON m.rental_id = r.id WHERE `+soakCustomers).Scan(ctx, &rentals); err != nil {
		inv["every rental is charged for the seconds observed"] = "the check could not run: " + err.Error()
	}
	var charged, stated []string
	byState := map[string]int{}
	for _, r := range rentals {
		key := r.State
		if r.Cause != nil {
			key += " (" + *r.Cause + ")"
		}
		byState[key]++
		switch {
		case r.EndedAt == nil:
			stated = append(stated, fmt.Sprintf("rental %d has not ended (%s)", r.ID, r.State))
		case (r.State == "FAILED" || r.State == "INTERRUPTED") && r.Cause == nil:
			stated = append(stated, fmt.Sprintf("rental %d ended %s without a cause", r.ID, r.State))
		}
		var want int64
		if r.StartedAt != nil && r.EndedAt != nil {
			if r.BillableUntil != nil && r.EndedAt.After(*r.BillableUntil) {
				charged = append(charged, fmt.Sprintf("rental %d ended at %s, after its stop at %s", r.ID, r.EndedAt, r.BillableUntil))
			}
			secs := int64(r.EndedAt.Sub(*r.StartedAt) / time.Second)
			want = r.PriceMicros * r.GpuCount * secs / 3600
		}
		if r.StartedAt != nil && (r.Closed == nil || !*r.Closed) {
			charged = append(charged, fmt.Sprintf("rental %d's meter is not closed", r.ID))
		}
		if r.ChargedMicros != want || r.Debited != want {
			charged = append(charged, fmt.Sprintf("rental %d: meter %d, customer debited %d, observed seconds at its price make %d", r.ID, r.ChargedMicros, r.Debited, want))
		}
	}
	// Every rental a customer was told it started is in the database (the
	// database may hold more: starts whose answer was lost).
	told := 0
	s.rentals.Range(func(_, _ any) bool { told++; return true })
	if told > len(rentals) {
		stated = append(stated, fmt.Sprintf("the customers were told of %d rentals, the database holds %d", told, len(rentals)))
	}
	verdict("every rental is charged for the seconds observed at its locked price", charged)
	verdict("every rental ended in a stated state with its cause", stated)
	s.report.Rentals = byState

	verdict("every payout was paid once, as the chain shows, and no transfer sent twice", s.payoutProblems())
	verdict("no GPU was allocated twice", rows(`SELECT CAST(a.gpu_id AS TEXT) || ': rentals ' || CAST(ra.id AS TEXT) || ' and ' || CAST(rb.id AS TEXT)
		FROM rental_gpus a JOIN rental_gpus b ON b.gpu_id = a.gpu_id AND b.rental_id > a.rental_id
		JOIN rentals ra ON ra.id = a.rental_id JOIN rentals rb ON rb.id = b.rental_id
		WHERE ra.created_at < COALESCE(rb.ended_at, CURRENT_TIMESTAMP) AND rb.created_at < COALESCE(ra.ended_at, CURRENT_TIMESTAMP)`))

	// No machine was reported offline that was not: only the machines the
	// agents-cut drill cut off went offline unplanned.
	cutSet := map[string]bool{}
	n := 0
	for _, p := range s.providers {
		for _, m := range p.machines {
			if n < s.cfg.CutAgents && s.drilled("agents-cut") {
				cutSet[m] = true
			}
			n++
		}
	}
	var falseOffline []string
	var offline []struct {
		MachineUID string
		StartedAt  time.Time
	}
	if err := s.db.NewRaw(`SELECT m.machine_uid, i.started_at FROM machine_status_intervals i JOIN machines m ON m.id = i.machine_id
		WHERE i.reason = 'UNPLANNED' AND m.machine_uid LIKE 'soak-m%' ORDER BY i.started_at`).Scan(ctx, &offline); err != nil {
		falseOffline = append(falseOffline, "the check could not run: "+err.Error())
	}
	for _, o := range offline {
		switch {
		case cutSet[o.MachineUID]:
		case o.StartedAt.Before(s.started):
			// The ramp (every agent registering and benchmarked at once)
			// is reported, not held to the steady run's rule.
			n, _ := strconv.Atoi(strings.TrimPrefix(o.MachineUID, "soak-m"))
			s.report.RampOffline = append(s.report.RampOffline, fmt.Sprintf("%s offline at ramp end %.1fs; its heartbeats: %s",
				o.MachineUID, o.StartedAt.Sub(s.started).Seconds(), s.wire.around(n, o.StartedAt)))
		default:
			falseOffline = append(falseOffline, fmt.Sprintf("%s at +%.1fs", o.MachineUID, o.StartedAt.Sub(s.started).Seconds()))
		}
	}
	for _, d := range s.report.Drills {
		if d.Kind == "agents-cut" && d.OfflineDuringCut != s.cfg.CutAgents {
			falseOffline = append(falseOffline, fmt.Sprintf("%d of the %d machines cut off for %s were offline at its end", d.OfflineDuringCut, s.cfg.CutAgents, time.Duration(s.cfgDrill("agents-cut").For)))
		}
	}
	verdict("every machine's status agrees with what its agent did", falseOffline)

	// What clients were answered: a dependency's outage is UNAVAILABLE,
	// never INTERNAL.
	var internal []string
	beats := s.wire.beats()
	hbOutcomes := map[string]int{}
	for _, b := range beats {
		hbOutcomes[b.outcome]++
	}
	s.report.Heartbeats.Outcomes = hbOutcomes
	s.report.AgentOtherRequests = s.wire.other.snapshot()
	s.report.Customers = s.customer.snapshot()
	s.report.AgentErrors = s.agentErrs.snapshot()
	for what, m := range map[string]map[string]int{"heartbeats": hbOutcomes, "other agent requests": s.report.AgentOtherRequests, "customers": s.report.Customers} {
		for k, v := range m {
			if strings.Contains(k, "INTERNAL") {
				internal = append(internal, fmt.Sprintf("%s: %d %s", what, v, k))
			}
		}
	}
	// A WebSocket's INTERNAL is its close 4500, which graphql-ws clients
	// never retry (a rolling restart told 21 dashboards so).
	for k, v := range s.dashboardEnds.snapshot() {
		if strings.Contains(k, "closed 4500") {
			internal = append(internal, fmt.Sprintf("dashboards: %d %s", v, k))
		}
	}
	verdict("no client was answered INTERNAL", internal)
	var gaveUp []string
	for e, v := range s.report.AgentErrors {
		gaveUp = append(gaveUp, fmt.Sprintf("%d agents: %s", v, e))
	}
	verdict("no agent gave up", gaveUp)

	s.heartbeatFigures(beats)
	d := &s.report.Dashboards
	d.Count = len(s.dashboards)
	d.Ended = s.dashboardEnds.snapshot()
	for _, db := range s.dashboards {
		db.mu.Lock()
		d.Events += db.events
		d.Reconnects += db.reconnects
		for _, g := range db.gaps {
			d.LongestGapSeconds = max(d.LongestGapSeconds, g.Seconds())
		}
		db.mu.Unlock()
	}
}

func (s *soak) drilled(kind string) bool { return s.cfgDrill(kind).Kind != "" }

func (s *soak) cfgDrill(kind string) soakDrill {
	for _, d := range s.cfg.Drills {
		if d.Kind == kind {
			return d
		}
	}
	return soakDrill{}
}

// heartbeatFigures works out the heartbeats' latency at steady state (out
// of every drill's window: from its start until the service was whole
// again, and an interval more) and their rate.
func (s *soak) heartbeatFigures(beats []beat) {
	h := &s.report.Heartbeats
	h.Total = len(beats)
	type window struct{ from, to time.Time }
	var windows []window
	for _, d := range s.report.Drills {
		from := s.started.Add(time.Duration(d.AtSeconds * float64(time.Second)))
		windows = append(windows, window{from, from.Add(time.Duration((d.FaultSeconds+d.HeartbeatsWholeSeconds)*float64(time.Second)) + s.cfg.Interval)})
	}
	var steady []time.Duration
	end := s.started.Add(s.cfg.Duration)
	for _, b := range beats {
		if b.at.Before(s.started) || b.at.After(end) || b.outcome != "ok" {
			continue
		}
		if slices.ContainsFunc(windows, func(w window) bool { return !b.at.Before(w.from) && b.at.Before(w.to) }) {
			continue
		}
		steady = append(steady, b.latency)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	h.SteadyCount = len(steady)
	h.SteadyP50Ms, h.SteadyP99Ms = ms(percentile(steady, 50)), ms(percentile(steady, 99))
	if len(steady) > 0 {
		h.SteadyMaxMs = ms(slices.Max(steady))
	}
	inRun := 0
	for _, b := range beats {
		if !b.at.Before(s.started) && !b.at.After(end) {
			inRun++
		}
	}
	h.PerSecond = float64(inRun) / s.cfg.Duration.Seconds()
}

// rowWrites is how many rows the soak's schema has had inserted, updated
// or deleted (PostgreSQL's statistics, flushed within a second or so).
func (s *soak) rowWrites() int64 {
	var n int64
	_ = s.db.NewRaw(`SELECT COALESCE(SUM(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables WHERE schemaname = current_schema()`).Scan(context.Background(), &n)
	return n
}

// afterLoad stops the load and reports each replica's memory and
// goroutines: their slope over the steady run, and that they return to
// the baseline once the load stops.
func (s *soak) afterLoad() {
	s.stopLoad()
	s.loadDone.Wait()
	s.stopAgents()
	s.agentsDone.Wait()
	// Idle keep-alive connections hold a goroutine on the server until its
	// idle timeout; they are the clients', not a leak.
	s.wire.base.(*http.Transport).CloseIdleConnections()
	s.admin.http.CloseIdleConnections()
	for _, c := range s.customers {
		c.http.CloseIdleConnections()
	}
	s.sampleMu.Lock()
	samples := slices.Clone(s.samples)
	s.sampleMu.Unlock()
	warm := s.started.Add(s.cfg.Duration / 4)
	for _, r := range s.replicas {
		rep := replicaReport{Name: r.name}
		var mine []replicaSample
		for _, sm := range samples {
			if sm.replica == r.name {
				mine = append(mine, sm)
			}
		}
		if len(mine) == 0 {
			continue
		}
		rep.BaselineGoroutines, rep.BaselineRSSMiB, rep.BaselineHeapInuseMiB = mine[0].goroutines, mine[0].rssMiB, mine[0].heapMiB
		last := mine[len(mine)-1]
		rep.EndGoroutines, rep.EndRSSMiB = last.goroutines, last.rssMiB
		for _, sm := range mine {
			rep.PeakRSSMiB = max(rep.PeakRSSMiB, sm.rssMiB)
		}
		// The steady slope: the longest run of one process after the
		// warm-up (a drill may have restarted the replica).
		byPid := map[int][]replicaSample{}
		for _, sm := range mine {
			if sm.at.After(warm) {
				byPid[sm.pid] = append(byPid[sm.pid], sm)
			}
		}
		var longest []replicaSample
		for _, ss := range byPid {
			if len(ss) > len(longest) {
				longest = ss
			}
		}
		rep.SteadyGoroutinesPerMin = slope(longest, func(sm replicaSample) float64 { return sm.goroutines })
		rep.SteadyRSSMiBPerMin = slope(longest, func(sm replicaSample) float64 { return sm.rssMiB })
		// Without load, the goroutines come back to the baseline.
		url := r.metrics()
		await.True(s.t, func() bool {
			g, ok := metric(url, "go_goroutines")
			rep.AfterLoadGoroutines = g
			return ok && g <= rep.BaselineGoroutines*1.25+20
		}, fmt.Sprintf("replica %s's goroutines did not come back to the baseline %.0f", r.name, rep.BaselineGoroutines))
		rep.AfterLoadRSSMiB, _ = metric(url, "process_resident_memory_bytes")
		rep.AfterLoadRSSMiB /= 1 << 20
		rep.AfterLoadHeapInuseMiB, _ = metric(url, "go_memstats_heap_inuse_bytes")
		rep.AfterLoadHeapInuseMiB /= 1 << 20
		s.report.Replicas = append(s.report.Replicas, rep)
	}
	if s.cfg.Name == "full" {
		s.memorySettles()
	}
	sort.Slice(s.report.Replicas, func(i, j int) bool { return s.report.Replicas[i].Name < s.report.Replicas[j].Name })
}

// memorySettles watches each replica once the load has stopped until its
// database pool has closed connections left idle (store's idle time) and
// its runtime has collected the heap twice since (an idle heap is
// collected within two minutes of the last collection, and the scavenger
// returns the freed pages after each), and reports the lowest resident
// memory it saw, the heap in use then and when: the memory the load left
// that the runtime gave back, and what the replica keeps. The short soak
// in make test does not wait for it.
func (s *soak) memorySettles() {
	const rss, heap, gcs = "process_resident_memory_bytes", "go_memstats_heap_inuse_bytes", "go_gc_duration_seconds_count"
	const open, idleClosed = `go_sql_open_connections{db_name="gpunex"}`, `go_sql_max_idle_time_closed_total{db_name="gpunex"}`
	stopped := time.Now()
	defer s.keepHeapProfiles()
	// Per replica: its page, its pool's idle closings at the stop, and
	// its collections once the pool had closed idle connections (-1
	// until it had): a closed connection's statement cache is garbage
	// only from then on.
	type watch struct {
		url               string
		closedAtStop, gcs float64
	}
	watches := map[string]*watch{}
	for _, r := range s.replicas {
		w := &watch{url: r.metrics(), gcs: -1}
		w.closedAtStop, _ = metric(w.url, idleClosed)
		watches[r.name] = w
	}
	for i := range s.report.Replicas {
		rep := &s.report.Replicas[i]
		rep.SettledRSSMiB, rep.SettledHeapInuseMiB = rep.AfterLoadRSSMiB, rep.AfterLoadHeapInuseMiB
	}
	await.True(s.t, func() bool {
		settled := true
		for i := range s.report.Replicas {
			rep := &s.report.Replicas[i]
			w := watches[rep.Name]
			m, ok := metrics(w.url, rss, heap, gcs, open, idleClosed)
			if !ok {
				settled = false
				continue
			}
			if m[rss]/(1<<20) < rep.SettledRSSMiB {
				rep.SettledRSSMiB, rep.SettledHeapInuseMiB = m[rss]/(1<<20), m[heap]/(1<<20)
				rep.SettledAfterSeconds = time.Since(stopped).Seconds()
				rep.SettledDBConnections = m[open]
			}
			if w.gcs < 0 && m[idleClosed] > w.closedAtStop {
				w.gcs = m[gcs]
			}
			settled = settled && w.gcs >= 0 && m[gcs] >= w.gcs+2
		}
		return settled
	}, "the idle replicas closed idle database connections and then collected their heaps twice")
	for _, rep := range s.report.Replicas {
		s.t.Logf("replica %s after the load: resident %.0f MiB (heap in use %.0f MiB) at once, %.0f MiB (heap %.0f MiB, %.0f database connections) %.0f s later; baseline %.0f MiB (heap %.0f MiB)",
			rep.Name, rep.AfterLoadRSSMiB, rep.AfterLoadHeapInuseMiB, rep.SettledRSSMiB, rep.SettledHeapInuseMiB, rep.SettledDBConnections,
			rep.SettledAfterSeconds, rep.BaselineRSSMiB, rep.BaselineHeapInuseMiB)
	}
}

// keepHeapProfiles saves each idle replica's heap profile beside the
// soak's report (GPUNEX_SOAK_REPORT's folder), soak-<replica>-heap.pprof:
// what it holds once the load is gone (go tool pprof -sample_index
// inuse_space with the gpunex binary).
func (s *soak) keepHeapProfiles() {
	report := os.Getenv("GPUNEX_SOAK_REPORT")
	if report == "" {
		return
	}
	for _, r := range s.replicas {
		res, err := http.Get("http://" + r.metricsAddr + "/debug/pprof/heap?gc=1")
		if err != nil {
			s.t.Logf("soak: no heap profile of replica %s: %v", r.name, err)
			continue
		}
		b, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err == nil && res.StatusCode == http.StatusOK {
			err = os.WriteFile(filepath.Join(filepath.Dir(report), "soak-"+r.name+"-heap.pprof"), b, 0o644)
		}
		if err != nil {
			s.t.Logf("soak: no heap profile of replica %s: %v", r.name, err)
		}
	}
}

// slope is the least-squares slope of f over the samples, per minute.
func slope(ss []replicaSample, f func(replicaSample) float64) float64 {
	if len(ss) < 2 {
		return 0
	}
	t0 := ss[0].at
	var n, sx, sy, sxx, sxy float64
	for _, s := range ss {
		x, y := s.at.Sub(t0).Minutes(), f(s)
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}
