package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/await"
)

// soakReport is every figure of a soak, printed and written as JSON.
type soakReport struct {
	Config       soakConfig
	SetupSeconds float64
	RampSeconds  float64
	// RampOffline are the machines marked offline (unplanned) while the
	// fleet was coming up, before the run's clock started, each with what
	// its heartbeats did about then.
	RampOffline []string
	Heartbeats  struct {
		Total          int
		Outcomes       map[string]int
		SteadyCount    int
		SteadyP50Ms    float64
		SteadyP99Ms    float64
		SteadyMaxMs    float64
		PerSecond      float64
		RowWritesPerHB float64 // every table's inserted, updated and deleted rows over the steady window, per heartbeat (metering and rentals included)
		// Over the same window, per heartbeat, everything included (the
		// dashboards' events, the customers' rentals, metering): the
		// replicas' CPU and the Redis commands.
		ReplicaCPUMsPerHB float64
		RedisCmdsPerHB    float64
		// Where the machine's cores went over that window, in cores
		// busy: all of it (/proc/stat), the two replicas, and this
		// process (the simulated agents, dashboards and customers); the
		// rest is PostgreSQL, Redis and the balancers. Beside Cores (the
		// machine's count) it says whether the latency is the cores'.
		Cores, MachineBusyCores, ReplicaBusyCores, HarnessBusyCores float64
		// The same window by process, in cores busy: the replicas, the
		// balancers and the harness by role, every other process by its
		// name (postgres, redis-server, …), a process that ended counted
		// in its parent (a PostgreSQL backend in the postmaster); and the
		// kernel's soft interrupts (loopback's packets) apart.
		BusyCoresByProcess map[string]float64
		SoftIRQCores       float64
	}
	// ReplicaStartFailures are the replicas that exited before they were
	// ready when started (after a drill's kill), each with its exit and
	// its last lines; the harness started each again, as its supervisor
	// (systemd's Restart=always) would.
	ReplicaStartFailures []string `json:",omitempty"`
	AgentOtherRequests   map[string]int
	AgentErrors          map[string]int
	Customers            map[string]int
	Dashboards           struct {
		Count, Events, Reconnects int
		Ended                     map[string]int // why sockets ended, by kind
		LongestGapSeconds         float64
		ConsistentAfterSeconds    float64
	}
	Drills   []drillReport
	Replicas []replicaReport
	// HarnessOpenFiles is the most descriptors the test process held at
	// a sample (its clients' connections and the balancers' two ends of
	// each), and FileLimit the limit it ran under.
	HarnessOpenFiles, FileLimit int
	Rentals                     map[string]int // by end state and cause
	Invariants                  map[string]string
}

// drillReport is one drill: when, what it took away, how long until the
// service was whole again, and what the agents were answered meanwhile.
type drillReport struct {
	Kind                   string
	AtSeconds              float64
	Replica                string `json:",omitempty"`
	FaultSeconds           float64
	HeartbeatsWholeSeconds float64 // after the fault ended, until every machine had a heartbeat accepted
	DashboardsLiveSeconds  float64 // until every dashboard was subscribed again
	LeaderWorkSeconds      float64 // until a replica led the background work again
	AgentOutcomes          map[string]int
	CustomerOutcomes       map[string]int
	OfflineDuringCut       int    `json:",omitempty"`
	Binary                 string `json:",omitempty"` // the build the rolling restart deployed
	// The payout-leader-kill drill: what the providers asking to be paid
	// were answered, and how long after the kill every payout made was
	// paid.
	PayoutAnswers         map[string]int `json:",omitempty"`
	PayoutsSettledSeconds float64        `json:",omitempty"`
}

type replicaReport struct {
	Name                                  string
	BaselineGoroutines, EndGoroutines     float64
	BaselineRSSMiB, PeakRSSMiB, EndRSSMiB float64
	SteadyGoroutinesPerMin                float64
	SteadyRSSMiBPerMin                    float64
	AfterLoadGoroutines, AfterLoadRSSMiB  float64
	// The Go heap in use (live objects and their spans) at the baseline
	// and once the load stopped; in the full soak, the resident memory
	// and heap once the runtime has collected and returned what the
	// load left (its periodic collection, then the scavenger), and how
	// long after the load that took.
	BaselineHeapInuseMiB, AfterLoadHeapInuseMiB float64
	SettledRSSMiB, SettledHeapInuseMiB          float64 `json:",omitempty"`
	SettledAfterSeconds                         float64 `json:",omitempty"`
	SettledDBConnections                        float64 `json:",omitempty"` // the pool's open connections then
}

type replicaSample struct {
	replica    string
	pid        int
	at         time.Time
	goroutines float64
	rssMiB     float64
	heapMiB    float64 // go_memstats_heap_inuse_bytes
	cpuSeconds float64
}

// sample reads each live replica's goroutines and resident memory, and
// the harness's own open descriptors.
func (s *soak) sample() {
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		s.sampleMu.Lock()
		s.report.HarnessOpenFiles = max(s.report.HarnessOpenFiles, len(fds))
		s.sampleMu.Unlock()
	}
	for _, r := range s.replicas {
		pid := r.pid()
		if pid == 0 {
			continue
		}
		m, ok := metrics(r.metrics(), "go_goroutines", "process_resident_memory_bytes", "process_cpu_seconds_total", "go_memstats_heap_inuse_bytes")
		if !ok {
			continue
		}
		s.sampleMu.Lock()
		s.samples = append(s.samples, replicaSample{replica: r.name, pid: pid, at: time.Now(), goroutines: m["go_goroutines"],
			rssMiB: m["process_resident_memory_bytes"] / (1 << 20), heapMiB: m["go_memstats_heap_inuse_bytes"] / (1 << 20),
			cpuSeconds: m["process_cpu_seconds_total"]})
		s.sampleMu.Unlock()
	}
}

// metric reads one unlabelled metric from a /metrics page.
func metric(url, name string) (float64, bool) {
	m, ok := metrics(url, name)
	return m[name], ok
}

// metrics reads unlabelled metrics from one fetch of a /metrics page;
// false unless every one of them is there.
func metrics(url string, names ...string) (map[string]float64, bool) {
	c := http.Client{Timeout: 10 * time.Second}
	res, err := c.Get(url)
	if err != nil {
		return nil, false
	}
	defer res.Body.Close()
	found := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		if !ok || !slices.Contains(names, name) {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			found[name] = f
		}
	}
	return found, len(found) == len(names)
}

// replicaCPU is the CPU seconds both replicas have used.
func (s *soak) replicaCPU() float64 {
	var total float64
	for _, r := range s.replicas {
		if c, ok := metric(r.metrics(), "process_cpu_seconds_total"); ok {
			total += c
		}
	}
	return total
}

// redisCommands is how many commands the soak's Redis has processed.
func (s *soak) redisCommands() int64 {
	c := redis.NewClient(&redis.Options{Addr: s.redis.Addr})
	defer c.Close()
	info, err := c.Info(context.Background(), "stats").Result()
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_commands_processed:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// until waits for the load's schedule to reach at.
func (s *soak) until(at time.Duration) {
	time.Sleep(time.Until(s.started.Add(at)))
}

// drillAll runs the drills at their times, then lets the load run out.
func (s *soak) drillAll() {
	// The SQL rows written per heartbeat, over the steady stretch before
	// the first drill (or the whole run without one).
	writes, cmds, cpu, from := s.rowWrites(), s.redisCommands(), s.replicaCPU(), time.Now()
	self, processes := selfCPUSeconds(), s.processCPU()
	busy, softirq := machineCPUSeconds()
	steadyEnd := s.cfg.Duration
	if len(s.cfg.Drills) > 0 {
		steadyEnd = s.cfg.Drills[0].At
	}
	s.until(steadyEnd)
	written, cmds, cpu, to := s.rowWrites()-writes, s.redisCommands()-cmds, s.replicaCPU()-cpu, time.Now()
	beats := 0
	for _, b := range s.wire.beats() {
		if b.outcome == "ok" && !b.at.Before(from) && b.at.Before(to) {
			beats++
		}
	}
	if beats > 0 {
		h := &s.report.Heartbeats
		h.RowWritesPerHB = float64(written) / float64(beats)
		h.RedisCmdsPerHB = float64(cmds) / float64(beats)
		h.ReplicaCPUMsPerHB = cpu * 1000 / float64(beats)
	}
	if elapsed := to.Sub(from).Seconds(); elapsed > 0 {
		h := &s.report.Heartbeats
		h.Cores = float64(runtime.NumCPU())
		busyNow, softirqNow := machineCPUSeconds()
		h.MachineBusyCores = (busyNow - busy) / elapsed
		h.ReplicaBusyCores = cpu / elapsed
		h.HarnessBusyCores = (selfCPUSeconds() - self) / elapsed
		h.SoftIRQCores = (softirqNow - softirq) / elapsed
		h.BusyCoresByProcess = map[string]float64{}
		for role, used := range s.processCPU().since(processes) {
			if cores := used / elapsed; cores >= 0.005 {
				h.BusyCoresByProcess[role] = math.Round(cores*1000) / 1000
			}
		}
	}
	for _, d := range s.cfg.Drills {
		s.until(d.At)
		s.report.Drills = append(s.report.Drills, s.drill(d))
	}
	s.until(s.cfg.Duration)
}

// raiseFileLimit lets the harness (and the replicas and balancers it
// starts, which inherit it) hold want descriptors: each client
// connection's end here, and each simulated agent's own files. The
// balancers' two ends per connection are their processes' own
// (proxytest.StartProcess): in this process they took the full size to
// about 25,000, past this machine's hard limit of 20,000. Root may raise
// the hard limit too; otherwise the soft one goes as far as the hard
// allows.
func (s *soak) raiseFileLimit(want uint64) {
	var l syscall.Rlimit
	require.NoError(s.t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l))
	raised := syscall.Rlimit{Cur: max(l.Cur, want), Max: max(l.Max, want)}
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) != nil {
		raised = syscall.Rlimit{Cur: max(l.Cur, min(want, l.Max)), Max: l.Max}
		// Called even when nothing changes: os/exec gives a child the
		// limit the process started with unless the program set one.
		require.NoError(s.t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised))
	}
	require.NoError(s.t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l))
	s.report.FileLimit = int(l.Cur)
}

// buildNext builds the rolling-restart drill's new binary of gpunex: the
// same source built again as a new artifact (its build ID differs, as a
// release's does), and checks it is not the running one's bytes.
func (s *soak) buildNext() {
	t := s.t
	s.nextBin = filepath.Join(s.dir, "next", "gpunex")
	// Other link flags than the first build's make another build ID (the
	// -X names no variable: the linker passes over it).
	cmd := exec.Command("go", "build", "-ldflags=-X=main.soakBuild=next", "-o", s.nextBin, "../../cmd/gpunex")
	cmd.Env = append(os.Environ(), "CGO_CFLAGS=-O2 -g -Wno-deprecated-declarations")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build the next gpunex: %s", out)
	require.NotEqual(t, fileSum(t, s.bin), fileSum(t, s.nextBin), "the next build is a new artifact")
}

func fileSum(t *testing.T, path string) [sha256.Size]byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(b)
}

// leader is the replica holding most of the background work's leases
// (PostgreSQL advisory locks in the soak's database, held by sessions its
// replicas named).
func (s *soak) leader() *replica {
	var names []string
	err := s.db.NewRaw(`SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`).
		Scan(context.Background(), &names)
	if err != nil {
		return nil
	}
	count := map[string]int{}
	for _, n := range names {
		count[n]++
	}
	var best *replica
	for _, r := range s.replicas {
		if count[r.appName] > 0 && (best == nil || count[r.appName] > count[best.appName]) {
			best = r
		}
	}
	return best
}

// stopReplica signals r and waits for it to exit.
func (s *soak) stopReplica(r *replica, sig syscall.Signal) {
	s.t.Helper()
	r.mu.Lock()
	p := r.proc
	r.mu.Unlock()
	require.NoError(s.t, p.cmd.Process.Signal(sig))
	p.wait()
}

func (s *soak) drill(d soakDrill) drillReport {
	t := s.t
	rep := drillReport{Kind: d.Kind, AtSeconds: time.Since(s.started).Seconds()}
	began := time.Now()
	customersBefore := s.customer.snapshot()
	cut := 0
	// The payout-leader-kill drill's payouts, and the transaction it holds.
	var made []string
	var held string
	var lookups int
	switch d.Kind {
	case "redis-restart":
		s.redis.Restart(t)
	case "postgres-restart":
		// Every connection dropped and new ones refused, as while
		// PostgreSQL restarts (the sessions, and their advisory locks,
		// end on the server).
		s.pg.Cut()
		time.Sleep(d.For)
		s.pg.Restore(t)
	case "payout-leader-kill":
		made, held, lookups = s.killMidPayout(&rep)
	case "leader-kill":
		r := s.leader()
		require.NotNil(t, r, "a replica leads")
		rep.Replica = r.name
		s.stopReplica(r, syscall.SIGKILL)
		// Its supervisor (systemd's Restart=always) starts it again.
		s.startReplica(r)
	case "agents-cut":
		s.cutFront.Cut(t)
		time.Sleep(d.For)
		cut = s.offlineAmong(s.cfg.CutAgents)
		rep.OfflineDuringCut = cut
		s.cutFront.Restore(t)
	case "rolling-restart":
		// A deploy of a new build: each replica in turn stopped as
		// systemd stops it (SIGTERM) and started again from the new
		// binary, the next only once it is ready.
		s.bin = s.nextBin
		rep.Binary = filepath.Base(filepath.Dir(s.nextBin)) + "/" + filepath.Base(s.nextBin)
		for _, r := range s.replicas {
			s.stopReplica(r, syscall.SIGTERM)
			s.startReplica(r)
			exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", r.pid()))
			require.NoError(t, err)
			require.Equal(t, s.nextBin, exe, "replica %s runs the new build", r.name)
		}
	default:
		t.Fatalf("unknown drill %q", d.Kind)
	}
	ended := time.Now()
	rep.FaultSeconds = ended.Sub(began).Seconds()
	await.True(t, func() bool { return s.leader() != nil }, "no replica leads after "+d.Kind)
	rep.LeaderWorkSeconds = time.Since(ended).Seconds()
	await.True(t, func() bool { return s.liveDashboards() == len(s.dashboards) }, lazy(func() string {
		return fmt.Sprintf("after %s, %d of %d dashboards are live; their sockets ended %v", d.Kind, s.liveDashboards(), len(s.dashboards), s.dashboardEnds.snapshot())
	}))
	rep.DashboardsLiveSeconds = time.Since(ended).Seconds()
	await.True(t, func() bool { return s.wire.allOKSince(ended) }, lazy(func() string {
		return fmt.Sprintf("after %s (ended %s), heartbeats are not accepted from %s", d.Kind, ended.Format("15:04:05.000"), joinMax(s.wire.notOKSince(ended), 5))
	}))
	rep.HeartbeatsWholeSeconds = time.Since(ended).Seconds()
	if made != nil {
		s.payoutsPaid(&rep, made, held, lookups, ended)
	}
	rep.AgentOutcomes = map[string]int{}
	for _, b := range s.wire.beats() {
		if !b.at.Before(began) && b.at.Before(time.Now()) {
			rep.AgentOutcomes[b.outcome]++
		}
	}
	rep.CustomerOutcomes = diff(s.customer.snapshot(), customersBefore)
	t.Logf("soak drill %s at %.0fs: fault %.1fs; whole after %.1fs (leader %.1fs, dashboards %.1fs); agents saw %v",
		d.Kind, rep.AtSeconds, rep.FaultSeconds, rep.HeartbeatsWholeSeconds, rep.LeaderWorkSeconds, rep.DashboardsLiveSeconds, rep.AgentOutcomes)
	return rep
}

// offlineAmong is how many of the first n machines are offline now.
func (s *soak) offlineAmong(n int) int {
	var uids []string
	for _, p := range s.providers {
		uids = append(uids, p.machines...)
	}
	uids = uids[:min(n, len(uids))]
	c, err := s.db.NewSelect().Table("machines").Where("status = 'OFFLINE'").Where("machine_uid IN (?)", bun.List(uids)).Count(context.Background())
	if err != nil {
		return -1
	}
	return int(c)
}

func diff(after, before map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range after {
		if v-before[k] != 0 {
			out[k] = v - before[k]
		}
	}
	return out
}

// writeReport prints the report and writes it where GPUNEX_SOAK_REPORT
// says.
func (s *soak) writeReport() {
	b, err := json.MarshalIndent(s.report, "", "  ")
	require.NoError(s.t, err)
	s.t.Logf("soak %s report:\n%s", s.cfg.Name, b)
	if path := os.Getenv("GPUNEX_SOAK_REPORT"); path != "" {
		require.NoError(s.t, os.WriteFile(path, append(b, '\n'), 0o644))
	}
	fmt.Fprintf(os.Stderr, "soak %s: heartbeats p99 %.0f ms (%d steady), %v\n", s.cfg.Name, s.report.Heartbeats.SteadyP99Ms,
		s.report.Heartbeats.SteadyCount, s.report.Invariants)
}

// machineCPUSeconds is the CPU time the whole machine has spent busy
// (every state of /proc/stat's cpu line but idle and iowait), and of it
// in soft interrupts (where loopback's packets are delivered), in seconds.
func machineCPUSeconds() (busy, softirq float64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	for i, f := range fields[1:] {
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest time is counted in user already
			continue
		}
		v, _ := strconv.ParseFloat(f, 64)
		busy += v / 100 // USER_HZ
		if i == 6 {
			softirq = v / 100
		}
	}
	return busy, softirq
}

// processTimes is the CPU time every process on the machine has used,
// by process (its id and start time, so that a reused id is another),
// each with its role: "replicas", "balancers" and "harness" for the
// soak's own, every other process its command name.
type processTimes map[[2]int64]processTime

type processTime struct {
	role string
	cpu  float64 // its own user and system time, and that of its children that ended
}

// processCPU reads processTimes from /proc.
func (s *soak) processCPU() processTimes {
	roles := map[int]string{os.Getpid(): "harness", s.front.Pid(): "balancers", s.cutFront.Pid(): "balancers"}
	for _, r := range s.replicas {
		if pid := r.pid(); pid != 0 {
			roles[pid] = "replicas"
		}
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	times := processTimes{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // it ended
		}
		// pid (comm) state ppid … utime stime cutime cstime … starttime:
		// comm may hold spaces and parentheses, so the fields are
		// counted from its last ')'.
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(string(b[end+1:]))
		if len(fields) < 20 {
			continue
		}
		var cpu float64
		for _, f := range fields[11:15] { // utime stime cutime cstime
			v, _ := strconv.ParseFloat(f, 64)
			cpu += v / 100 // USER_HZ
		}
		started, _ := strconv.ParseInt(fields[19], 10, 64)
		role, ok := roles[pid]
		if !ok {
			role = string(b[open+1 : end])
		}
		times[[2]int64{int64(pid), started}] = processTime{role, cpu}
	}
	return times
}

// since is the CPU seconds each role used between before and t. A
// process that started in between counts whole; one that ended is
// counted in its parent's children's time (PostgreSQL's backends, in
// the postmaster's), its time before the window included.
func (t processTimes) since(before processTimes) map[string]float64 {
	used := map[string]float64{}
	for key, p := range t {
		used[p.role] += p.cpu - before[key].cpu
	}
	return used
}

// selfCPUSeconds is the CPU time this process has used.
func selfCPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
