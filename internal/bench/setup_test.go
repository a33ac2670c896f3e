package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// start is the instant every test clock starts at.
var start = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// h100 is the NVML name of the catalogue's H100 SXM.
const h100 = "NVIDIA H100 80GB HBM3"

// testConfig is the benchmark configuration of every test: the defaults,
// spelled out so the tests can reason about them.
func testConfig() Config {
	return Config{Every: 24 * time.Hour, Jitter: 6 * time.Hour, Cooldown: 10 * time.Minute, RunTimeout: 30 * time.Minute,
		RetryAfter: time.Hour, PublicURL: func() string { return "https://gpunex.test" }}
}

// bundle is what a benchmark test works with: the real fleet, notification
// and outbox over one database, a manual clock, and a provider's agent.
type bundle struct {
	ctx     context.Context
	db      *store.DB
	clock   *clock.Manual
	bus     bus.Bus
	fleet   *fleet.Service
	svc     *Service
	agent   *auth.Agent
	email   string
	queries *storetest.Queries
	// logs holds the service's warnings.
	logs *logBuffer
}

// logBuffer collects log lines from any goroutine.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines are the lines logged so far that contain every one of words.
func (l *logBuffer) lines(words ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.b.String(), "\n") {
		ok := line != ""
		for _, w := range words {
			ok = ok && strings.Contains(line, w)
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// setup runs everything in memory but the database.
func setup(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	b := bus.NewMemory()
	t.Cleanup(func() { _ = b.Close() })
	return newBundle(t, db, b)
}

// setupStack pairs the database with the bus of its stack, as the platform
// runs them: memory with SQLite, Redis with PostgreSQL.
func setupStack(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	if db.Backend() != "postgres" {
		return setup(t, db)
	}
	options, err := redis.ParseURL(redistest.SharedURL(t))
	require.NoError(t, err)
	client := redis.NewClient(options)
	rb := bus.NewRedis(client, slog.New(slog.DiscardHandler), bus.WithPrefix("gpunex-test:bench:"+rand.Text()+":"))
	t.Cleanup(func() { _ = rb.Close(); _ = client.Close() })
	return newBundle(t, db, rb)
}

func newBundle(t *testing.T, db *store.DB, b bus.Bus) *bundle {
	t.Helper()
	clk := clock.NewManual(start)
	logs := &logBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	pres := presence.NewMemory(clk)
	t.Cleanup(func() { _ = pres.Close() })
	fl := fleet.New(fleet.Deps{DB: db, Presence: pres, Bus: b, Clock: clk, Logger: logger}, fleet.Config{Interval: 10 * time.Second})
	svc := New(Deps{DB: db, Bus: b, Fleet: fl, Clock: clk, Logger: logger, Random: mrand.NewPCG(1, 2),
		Notify: notification.New(notification.Deps{DB: db, Bus: b, Clock: clk, Logger: logger}, notification.Config{}),
		Outbox: mail.NewOutbox(clk, nil)}, testConfig())
	fl.OnRegistered(svc.OnRegistered)
	bd := &bundle{ctx: t.Context(), db: db, clock: clk, bus: b, fleet: fl, svc: svc, queries: storetest.CountQueries(db), logs: logs}
	bd.agent, bd.email = bd.provider(t, "p")
	return bd
}

// provider inserts the rows a provider named name stands on and returns
// its agent and its user's email.
func (b *bundle) provider(t *testing.T, name string) (*auth.Agent, string) {
	t.Helper()
	now := b.clock.Now()
	email := name + "@example.com"
	u := &models.User{Email: email, Name: name, PasswordHash: "x", CreatedAt: now, UpdatedAt: now}
	_, err := b.db.NewInsert().Model(u).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	app := &models.ProviderApplication{UserID: u.ID, Status: models.ApplicationApproved, FullName: name, Email: email,
		CommitmentMonths: 12, SuggestionTier: models.TierCommunity, SuggestionReasons: []string{}, SubmittedAt: now, UpdatedAt: now}
	_, err = b.db.NewInsert().Model(app).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	p := &models.Provider{UserID: u.ID, ApplicationID: app.ID, Tier: models.TierCommunity, Name: name, CreatedAt: now}
	_, err = b.db.NewInsert().Model(p).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	return &auth.Agent{TokenID: p.ID, ProviderID: p.ID}, email
}

// gpu is one GPU of a registration.
func gpu(uuid string, index int, name string) protocol.GpuInventory {
	driver := "550.54"
	return protocol.GpuInventory{UUID: uuid, Index: index, Name: name, DriverVersion: &driver}
}

// register registers machine uid of agent with gpus and returns its row id.
func (b *bundle) register(t *testing.T, agent *auth.Agent, uid string, gpus ...protocol.GpuInventory) int64 {
	t.Helper()
	m, err := b.fleet.Register(b.ctx, agent, protocol.RegisterMachineInput{MachineID: uid, Hostname: "host-" + uid, AgentVersion: "1.0.0", Gpus: gpus})
	require.NoError(t, err)
	return m.ID
}

// beat sends machine uid's heartbeat and returns the RUN_BENCHMARK
// payloads it carried back.
func (b *bundle) beat(t *testing.T, agent *auth.Agent, uid string) []protocol.RunBenchmarkPayload {
	t.Helper()
	res, err := b.fleet.Heartbeat(b.ctx, agent, protocol.HeartbeatInput{MachineID: uid})
	require.NoError(t, err)
	var out []protocol.RunBenchmarkPayload
	for _, c := range res.Commands {
		require.Equal(t, protocol.CommandRunBenchmark, c.Kind)
		var p protocol.RunBenchmarkPayload
		require.NoError(t, json.Unmarshal([]byte(c.Payload), &p))
		out = append(out, p)
	}
	return out
}

// runOf beats machine uid and returns the one run its heartbeat asked for.
func (b *bundle) runOf(t *testing.T, agent *auth.Agent, uid string) protocol.RunBenchmarkPayload {
	t.Helper()
	runs := b.beat(t, agent, uid)
	require.Len(t, runs, 1, "one RUN_BENCHMARK command with the heartbeat")
	require.NotEmpty(t, runs[0].RunID)
	return runs[0]
}

// count returns the number of rows of table matching where (all when "").
func (b *bundle) count(t *testing.T, table, where string, args ...any) int {
	t.Helper()
	q := b.db.NewSelect().TableExpr(table)
	if where != "" {
		q = q.Where(where, args...)
	}
	n, err := q.Count(b.ctx)
	require.NoError(t, err)
	return int(n)
}

// listing returns a GPU's listing, PENDING when it has none yet.
func (b *bundle) listing(t *testing.T, uuid string) models.GpuListing {
	t.Helper()
	var l []models.GpuListing
	require.NoError(t, b.db.NewSelect().TableExpr("gpu_bench_status AS s").Join("JOIN machine_gpus AS g ON g.id = s.gpu_id").
		ColumnExpr("s.listing").Where("g.uuid = ?", uuid).Scan(b.ctx, &l))
	if len(l) == 0 {
		return models.GpuListingPending
	}
	return l[0]
}

// schedule reads machine id's schedule.
func (b *bundle) schedule(t *testing.T, machineID int64) models.MachineBenchSchedule {
	t.Helper()
	var s models.MachineBenchSchedule
	require.NoError(t, b.db.NewSelect().Model(&s).Where("machine_id = ?", machineID).Scan(b.ctx))
	return s
}

// runs lists machine id's runs, oldest first.
func (b *bundle) runs(t *testing.T, machineID int64) []models.BenchmarkRun {
	t.Helper()
	var rs []models.BenchmarkRun
	require.NoError(t, b.db.NewSelect().Model(&rs).Where("machine_id = ?", machineID).OrderExpr("id ASC").Scan(b.ctx))
	return rs
}

// history lists a GPU's results, oldest first.
func (b *bundle) history(t *testing.T, uuid string) []models.GpuBenchmark {
	t.Helper()
	var rs []models.GpuBenchmark
	require.NoError(t, b.db.NewSelect().Model(&rs).Join("JOIN machine_gpus AS g ON g.id = gb.gpu_id").
		Where("g.uuid = ?", uuid).OrderExpr("gb.id ASC").Scan(b.ctx))
	return rs
}

// notifications lists the notifications of the provider's user with email.
func (b *bundle) notifications(t *testing.T, email string) []models.Notification {
	t.Helper()
	var ns []models.Notification
	require.NoError(t, b.db.NewSelect().Model(&ns).Join("JOIN users AS u ON u.id = n.user_id").
		Where("u.email = ?", email).OrderExpr("n.id ASC").Scan(b.ctx))
	return ns
}

// emails lists the outbox's emails, oldest first.
func (b *bundle) emails(t *testing.T) []models.OutboxEmail {
	t.Helper()
	var es []models.OutboxEmail
	require.NoError(t, b.db.NewSelect().Model(&es).OrderExpr("id ASC").Scan(b.ctx, &es))
	return es
}

// result is a run's result for machine uid, its network and storage
// healthy, finished a minute ago, each GPU metric sealed as an honest
// agent seals it for the run (see seal).
func (b *bundle) result(runID, uid string, gpus ...protocol.GpuBenchResult) protocol.BenchmarkResultInput {
	now := b.clock.Now()
	var nonce []string
	_ = b.db.NewSelect().Model((*models.BenchmarkRun)(nil)).Column("nonce").Where("run_uid = ? AND nonce IS NOT NULL", runID).Scan(b.ctx, &nonce)
	if len(nonce) == 1 {
		gpus = slices.Clone(gpus) // the caller's may be used again
		for i := range gpus {
			gpus[i] = seal(gpus[i], nonce[0], 132)
		}
	}
	return protocol.BenchmarkResultInput{RunID: runID, MachineID: uid, StartedAt: now.Add(-10 * time.Minute), FinishedAt: now.Add(-time.Minute),
		Gpus: gpus, Network: network(20, 900, 400), Storage: storage(1500, 2500, 90_000)}
}

// seal gives each supported GPU metric of r not sealed yet the launch an
// agent reports on a GPU of sms SMs (8 blocks per SM, 100 rounds or
// passes, 512 MiB buffers) and the checksum its outputs have under nonce.
func seal(r protocol.GpuBenchResult, nonce string, sms int) protocol.GpuBenchResult {
	seeds := protocol.BenchSeedsFor(nonce)
	r.Measurements = slices.Clone(r.Measurements)
	for i, m := range r.Measurements {
		if !m.Supported || !slices.Contains(protocol.GPUMetrics, m.Metric) || m.Launch != nil {
			continue
		}
		l := protocol.BenchLaunch{SmCount: sms, Grid: sms * 8, Scale: 100}
		if strings.HasPrefix(string(m.Metric), "MEMORY_") {
			l.BufferBytes = ptr(float64(512 << 20))
		}
		sum, err := protocol.ExpectedBenchChecksum(m.Metric, seeds, l, m.Repetitions)
		if err != nil {
			panic(err)
		}
		r.Measurements[i].Launch, r.Measurements[i].Checksum = &l, &sum
	}
	return r
}

// figure is a measurement with a spread of one percent either side.
func figure(metric protocol.BenchMetric, median float64) protocol.BenchMeasurement {
	return protocol.BenchMeasurement{Metric: metric, Supported: true, Median: ptr(median), Min: ptr(round3(median * 0.99)),
		Max: ptr(round3(median * 1.01)), Repetitions: 20}
}

func network(latencyMS, downMbit, upMbit float64) *protocol.BenchSection {
	return &protocol.BenchSection{Outcome: protocol.BenchCompleted, Measurements: []protocol.BenchMeasurement{
		figure(protocol.MetricNetworkLatency, latencyMS), figure(protocol.MetricNetworkDownload, downMbit), figure(protocol.MetricNetworkUpload, upMbit)}}
}

func storage(writeMBs, readMBs, iops float64) *protocol.BenchSection {
	return &protocol.BenchSection{Outcome: protocol.BenchCompleted, Measurements: []protocol.BenchMeasurement{
		figure(protocol.MetricStorageWrite, writeMBs), figure(protocol.MetricStorageRead, readMBs), figure(protocol.MetricStorageRandomRead, iops)}}
}

// expected is what a healthy GPU of model measures for metric.
func expected(model *catalog.GpuModel, metric protocol.BenchMetric) float64 {
	return round3(*reference(model, metric) * DefaultThresholds().GPU[metric].Attainable)
}

// measured is an H100 SXM's result: compute metrics at compute times the
// expected figures, memory metrics at memory times theirs.
func measured(uuid string, compute, memory float64) protocol.GpuBenchResult {
	model := catalog.ByKey("H100_SXM_80GB")
	r := protocol.GpuBenchResult{UUID: uuid, Outcome: protocol.BenchCompleted, Evidence: &protocol.GpuBenchEvidence{Samples: 120}}
	for _, m := range protocol.GPUMetrics {
		factor := compute
		if m == protocol.MetricMemoryRead || m == protocol.MetricMemoryWrite || m == protocol.MetricMemoryCopy {
			factor = memory
		}
		r.Measurements = append(r.Measurements, figure(m, round3(expected(model, m)*factor)))
	}
	return r
}

// healthy is an H100 SXM measuring 98 % of what is expected.
func healthy(uuid string) protocol.GpuBenchResult { return measured(uuid, 0.98, 0.98) }

// throttled is an H100 SXM held down by heat: its compute at 55 %.
func throttled(uuid string) protocol.GpuBenchResult {
	r := measured(uuid, 0.55, 0.97)
	r.Evidence = &protocol.GpuBenchEvidence{Samples: 120, MaxTemperatureC: ptr(91.0), ThrottledShare: 0.62,
		ThrottleReasons: []string{"HW_THERMAL_SLOWDOWN", "SW_THERMAL_SLOWDOWN"}}
	return r
}

// next returns the next event of ch, failing if none comes or ch closes.
func next(t *testing.T, ch <-chan *Event) *Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "the subscription closed early")
		return ev
	case <-await.Timeout(t):
		t.Fatal("no event arrived")
		return nil
	}
}
