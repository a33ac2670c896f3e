package fleet

import (
	"context"
	"crypto/rand"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// machineUID is the machine id setup registers.
const machineUID = "machine-0001"

// seedProvider inserts the rows a provider named name stands on and
// returns its id.
func seedProvider(t *testing.T, db *store.DB, now time.Time, name string) int64 {
	t.Helper()
	ctx := context.Background()
	email := name + "@example.com"
	u := &models.User{Email: email, Name: name, PasswordHash: "x", CreatedAt: now, UpdatedAt: now}
	_, err := db.NewInsert().Model(u).Returning("id").Exec(ctx)
	require.NoError(t, err)
	app := &models.ProviderApplication{UserID: u.ID, Status: models.ApplicationApproved, FullName: name, Email: email,
		CommitmentMonths: 12, SuggestionTier: models.TierCommunity, SuggestionReasons: []string{}, SubmittedAt: now, UpdatedAt: now}
	_, err = db.NewInsert().Model(app).Returning("id").Exec(ctx)
	require.NoError(t, err)
	p := &models.Provider{UserID: u.ID, ApplicationID: app.ID, Tier: models.TierCommunity, Name: name, CreatedAt: now}
	_, err = db.NewInsert().Model(p).Returning("id").Exec(ctx)
	require.NoError(t, err)
	return p.ID
}

// bundle is what a fleet test works with: the service over one database,
// a provider's agent, and machine-0001 registered with one GPU (GPU-1).
type bundle struct {
	ctx       context.Context
	db        *store.DB
	clock     *clock.Manual
	presence  presence.Store
	bus       *subscribeSignal
	svc       *Service
	agent     *auth.Agent
	machineID int64
	queries   *storetest.Queries
}

// setup keeps presence in memory on the manual clock, for tests that let
// presence keys expire.
func setup(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	clk := clock.NewManual(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	pres := presence.NewMemory(clk)
	t.Cleanup(func() { _ = pres.Close() })
	return newBundle(t, db, clk, pres)
}

// setupStack pairs the database with the presence store of its stack, as
// the platform runs them: memory with SQLite, Redis with PostgreSQL. Redis
// keeps time itself, so these tests never wait for a key to expire.
func setupStack(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	clk := clock.NewManual(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	var pres presence.Store
	if db.Backend() == "postgres" {
		options, err := redis.ParseURL(redistest.SharedURL(t))
		require.NoError(t, err)
		client := redis.NewClient(options)
		t.Cleanup(func() { _ = client.Close() })
		pres = presence.NewRedis(client, presence.WithPrefix("gpunex-test:fleet:"+rand.Text()+":"))
	} else {
		pres = presence.NewMemory(clk)
	}
	t.Cleanup(func() { _ = pres.Close() })
	return newBundle(t, db, clk, pres)
}

func newBundle(t *testing.T, db *store.DB, clk *clock.Manual, pres presence.Store) *bundle {
	t.Helper()
	b := &bundle{ctx: t.Context(), db: db, clock: clk, presence: pres, bus: newSubscribeSignal(bus.NewMemory()), queries: storetest.CountQueries(db)}
	t.Cleanup(func() { _ = b.bus.Close() })
	b.svc = b.replica(Config{Interval: 10 * time.Second})
	pid := seedProvider(t, db, clk.Now(), "p")
	b.agent = &auth.Agent{TokenID: 1, ProviderID: pid}
	m, err := b.svc.Register(context.Background(), b.agent, protocol.RegisterMachineInput{MachineID: machineUID, Hostname: "h", AgentVersion: "1",
		Gpus: []protocol.GpuInventory{{UUID: "GPU-1", Name: "NVIDIA L4", Simulated: true}}})
	require.NoError(t, err)
	b.machineID = m.ID
	return b
}

// replica is another fleet service over the bundle's database, presence
// store and bus: what a second server replica runs. The tests' GPUs are
// simulated, so it takes them (AllowSimulated) as the demo world does.
func (b *bundle) replica(cfg Config) *Service {
	cfg.AllowSimulated = true
	return New(Deps{DB: b.db, Presence: b.presence, Bus: b.bus, Clock: b.clock, Logger: slog.New(slog.DiscardHandler)}, cfg)
}

// machine reads machine-0001's row.
func (b *bundle) machine(t *testing.T) models.Machine {
	t.Helper()
	var m models.Machine
	require.NoError(t, b.db.NewSelect().Model(&m).Where("machine_uid = ?", machineUID).Scan(context.Background()))
	return m
}

func (b *bundle) status(t *testing.T) protocol.MachineStatus {
	t.Helper()
	return b.machine(t).Status
}

// intervals lists machine-0001's status intervals, oldest first.
func (b *bundle) intervals(t *testing.T) []models.MachineStatusInterval {
	t.Helper()
	var is []models.MachineStatusInterval
	require.NoError(t, b.db.NewSelect().Model(&is).Where("machine_id = ?", b.machineID).OrderExpr("id ASC").Scan(context.Background()))
	return is
}

// live reads machine-0001's presence value, if any.
func (b *bundle) live(t *testing.T) (beat, bool) {
	t.Helper()
	raw, ok, err := b.presence.Get(context.Background(), presenceKey(b.machineID))
	require.NoError(t, err)
	if !ok {
		return beat{}, false
	}
	v, ok := beatOf(map[string][]byte{presenceKey(b.machineID): raw}, b.machineID)
	require.True(t, ok, "the presence value decodes")
	return v, true
}

// subscribeSignal is a bus that tells when someone has subscribed to the
// commands channel, so a test publishes only once a replica listens.
type subscribeSignal struct {
	bus.Bus
	once       sync.Once
	subscribed chan struct{}
}

var _ bus.Bus = (*subscribeSignal)(nil)

func newSubscribeSignal(b bus.Bus) *subscribeSignal {
	return &subscribeSignal{Bus: b, subscribed: make(chan struct{})}
}

// Subscribe implements bus.Bus.
func (s *subscribeSignal) Subscribe(ctx context.Context, channel string) (<-chan bus.Message, error) {
	msgs, err := s.Bus.Subscribe(ctx, channel)
	if err == nil && channel == commandsChannel {
		s.once.Do(func() { close(s.subscribed) })
	}
	return msgs, err
}
