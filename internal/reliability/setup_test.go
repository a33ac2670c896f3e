package reliability

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// t0 is Monday 2026-11-02 00:00 UTC, where every timeline starts.
var t0 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

type bundle struct {
	ctx     context.Context
	db      *store.DB
	clock   *clock.Manual
	svc     *Service
	queries *storetest.Queries
	serial  int
}

func setup(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	clk := clock.NewManual(t0)
	b := bus.NewMemory()
	t.Cleanup(func() { _ = b.Close() })
	logger := slog.New(slog.DiscardHandler)
	notify := notification.New(notification.Deps{DB: db, Bus: b, Clock: clk, Logger: logger}, notification.Config{})
	return &bundle{ctx: t.Context(), db: db, clock: clk, queries: storetest.CountQueries(db),
		svc: New(Deps{DB: db, Bus: b, Notify: notify, Clock: clk, Logger: logger}, Config{})}
}

// provider seeds an approved provider (schedule a, nil for none: 24/7)
// with one machine registered at t0, online.
func (b *bundle) provider(t *testing.T, a *models.Availability) (int64, int64) {
	t.Helper()
	p := b.newProvider(t, a)
	now := t0
	m := &models.Machine{ProviderID: p, MachineID: fmt.Sprintf("m-%d", b.serial), Hostname: fmt.Sprintf("host-%d", b.serial), AgentVersion: "1",
		Status: protocol.MachineOnline, StatusChangedAt: now, RegisteredAt: now, UpdatedAt: now}
	_, err := b.db.NewInsert().Model(m).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	require.NoError(t, b.svc.transition(b.ctx, m.ID, protocol.MachineOnline, now))
	return p, m.ID
}

// newProvider seeds an approved provider (schedule a, nil for none: 24/7)
// without machines.
func (b *bundle) newProvider(t *testing.T, a *models.Availability) int64 {
	t.Helper()
	b.serial++
	now := t0
	u := &models.User{Email: fmt.Sprintf("p%d@example.com", b.serial), Name: "P", PasswordHash: "x", CreatedAt: now, UpdatedAt: now}
	_, err := b.db.NewInsert().Model(u).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	app := &models.ProviderApplication{UserID: u.ID, Status: models.ApplicationApproved, FullName: "P", Email: u.Email,
		CommitmentMonths: 3, SuggestionTier: models.TierCommunity, SuggestionReasons: []string{}, SubmittedAt: now, UpdatedAt: now}
	_, err = b.db.NewInsert().Model(app).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	p := &models.Provider{UserID: u.ID, ApplicationID: app.ID, Tier: models.TierCommunity, Name: fmt.Sprintf("P%d", b.serial), CreatedAt: now}
	_, err = b.db.NewInsert().Model(p).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	if a != nil {
		_, err = b.db.NewInsert().Model(&models.ProviderSchedule{ProviderID: p.ID, Availability: *a, UpdatedAt: now}).Exec(b.ctx)
		require.NoError(t, err)
	}
	return p.ID
}

func (b *bundle) at(t *testing.T, machine int64, status protocol.MachineStatus, when time.Time) {
	t.Helper()
	require.NoError(t, b.svc.transition(b.ctx, machine, status, when))
}

func (b *bundle) summary(t *testing.T, provider int64) *Summary {
	t.Helper()
	s, err := b.svc.Provider(b.ctx, provider)
	require.NoError(t, err)
	return s
}

func weekdays(from, to string) *models.Availability {
	zone := "UTC"
	a := &models.Availability{Kind: models.AvailabilityWeekly, TimeZone: &zone, Windows: []*models.AvailabilityWindow{}}
	for _, d := range models.Weekdays[:5] {
		a.Windows = append(a.Windows, &models.AvailabilityWindow{Day: d, Start: from, End: to})
	}
	return a
}

func ptr[T any](v T) *T { return &v }
