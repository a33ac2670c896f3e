package onboarding_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/installer"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/internal/provider"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// bundle is what an onboarding test works with.
type bundle struct {
	ctx     context.Context
	db      *store.DB
	clock   *clock.Manual
	probe   *probeBus
	auth    *auth.Service
	notify  *notification.Service
	service *onboarding.Service
	admin   *auth.Viewer
	queries *storetest.Queries
}

// setup returns the onboarding service over db with its real
// collaborators, an in-memory bus that records what the database holds
// when each change is announced, and an admin.
func setup(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	return setupWith(t, db, onboarding.Config{})
}

// setupWith is setup with cfg (its PublicURL set for the test).
func setupWith(t *testing.T, db *store.DB, cfg onboarding.Config) *bundle {
	t.Helper()
	cfg.PublicURL = func() string { return "https://gpunex.example" }
	clk := clock.NewManual(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	logger := slog.New(slog.DiscardHandler)
	probe := &probeBus{Bus: bus.NewMemory(), db: db}
	t.Cleanup(func() { _ = probe.Close() })
	a := auth.New(auth.Deps{DB: db, Clock: clk, Logger: logger}, auth.Config{PasswordParams: authtest.Params})
	n := notification.New(notification.Deps{DB: db, Bus: probe, Clock: clk, Logger: logger}, notification.Config{})
	providers := provider.New(provider.Deps{DB: db, Auth: a, Clock: clk, Logger: logger},
		provider.Config{InstallCommand: func() string { return installer.Command("https://gpunex.example") }})
	b := &bundle{
		ctx: t.Context(), db: db, clock: clk, probe: probe, auth: a, notify: n,
		service: onboarding.New(onboarding.Deps{DB: db, Auth: a, Providers: providers, Notify: n, Bus: probe,
			Outbox: mail.NewOutbox(clk, func() {}), Clock: clk, Logger: logger},
			cfg),
		queries: storetest.CountQueries(db),
	}
	b.admin = b.viewer(t, "ada@example.com", models.RoleAdmin)
	return b
}

// viewer creates an account with roles and returns it as a signed-in viewer.
func (b *bundle) viewer(t *testing.T, email string, roles ...models.Role) *auth.Viewer {
	t.Helper()
	u, err := b.auth.CreateUser(b.ctx, auth.SignUpInput{Email: email, Password: "correct horse battery", Name: email}, roles...)
	require.NoError(t, err)
	return &auth.Viewer{User: u, Roles: u.Roles}
}

// input is a valid application; ups says whether it declares UPS.
func input(email string, ups bool, notes string) onboarding.Input {
	city := "Lisbon"
	return onboarding.Input{
		FullName: "Grace Hopper", Email: email, UpsProtected: ups, CommitmentMonths: 12, MaintenanceNotes: &notes,
		Gpus: []onboarding.GPUInput{
			{ModelKey: "H100_SXM_80GB", Quantity: 8, RAMGb: 1024, UploadGbps: 10, DownloadGbps: 10,
				Availability: availability.Input{Kind: models.AvailabilityAlways}, Location: models.Location{City: &city}},
			{ModelKey: "L4_24GB", Quantity: 2, RAMGb: 64, UploadGbps: 1, DownloadGbps: 1,
				Availability: availability.Input{Kind: models.AvailabilityAlways}, Location: models.Location{City: &city}},
		},
	}
}

// apply submits a valid application as a new applicant.
func (b *bundle) apply(t *testing.T, email string, ups bool) (*auth.Viewer, *models.ProviderApplication) {
	t.Helper()
	v := b.viewer(t, email)
	app, err := b.service.Submit(b.ctx, v, input(email, ups, "first answers"))
	require.NoError(t, err)
	b.clock.Advance(time.Minute)
	return v, app
}

// probeBus is a memory bus that, as each application change is announced,
// reads the application's status from the database outside any
// transaction: what a watcher loading it at that moment would see.
type probeBus struct {
	bus.Bus
	db *store.DB

	mu   sync.Mutex
	seen []string // "id:STATUS"
}

// Publish implements bus.Bus.
func (p *probeBus) Publish(ctx context.Context, channel string, payload []byte) error {
	if channel == onboarding.ChangesChannel {
		var ev struct{ ApplicationID int64 }
		if err := json.Unmarshal(payload, &ev); err != nil {
			return err
		}
		var status string
		if err := p.db.NewSelect().Table("provider_applications").Column("status").Where("id = ?", ev.ApplicationID).Scan(ctx, &status); err != nil {
			return err
		}
		p.mu.Lock()
		p.seen = append(p.seen, strconv.FormatInt(ev.ApplicationID, 10)+":"+status)
		p.mu.Unlock()
	}
	return p.Bus.Publish(ctx, channel, payload)
}

// take returns what was announced since the last take.
func (p *probeBus) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.seen
	p.seen = nil
	return out
}

func idOf(app *models.ProviderApplication, status models.ApplicationStatus) string {
	return strconv.FormatInt(app.ID, 10) + ":" + string(status)
}

func TestEveryChangeIsAnnouncedOnceCommittedAndNothingElseIs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		grace, app := b.apply(t, "grace@example.com", false)
		require.Equal(t, []string{idOf(app, models.ApplicationSubmitted)}, b.probe.take(), "a submission, readable when announced")

		cases := []struct {
			desc string
			do   func() error
			want []string // announced, with the status the database held then
		}{
			{"Enterprise without UPS is refused: rolled back, not announced", func() error {
				_, _, err := b.service.Approve(b.ctx, b.admin, app.ID, new(models.TierEnterprise), nil)
				var v *fault.Validation
				require.ErrorAs(t, err, &v)
				return nil
			}, nil},
			{"asking for more information", func() error {
				_, err := b.service.RequestInfo(b.ctx, b.admin, app.ID, "Which UPS do you run?")
				return err
			}, []string{idOf(app, models.ApplicationInfoRequested)}},
			{"the applicant's resubmission", func() error {
				_, err := b.service.Update(b.ctx, grace, app.ID, input("grace@example.com", true, "APC Smart-UPS"), nil)
				return err
			}, []string{idOf(app, models.ApplicationSubmitted)}},
			{"an approval", func() error {
				_, _, err := b.service.Approve(b.ctx, b.admin, app.ID, nil, nil)
				return err
			}, []string{idOf(app, models.ApplicationApproved)}},
			{"approving again changes nothing and announces nothing", func() error {
				_, _, err := b.service.Approve(b.ctx, b.admin, app.ID, nil, nil)
				return err
			}, nil},
			{"rejecting an approved application is refused, not announced", func() error {
				_, err := b.service.Reject(b.ctx, b.admin, app.ID, "too late")
				var v *fault.Validation
				require.ErrorAs(t, err, &v)
				return nil
			}, nil},
		}
		for _, tc := range cases {
			require.NoError(t, tc.do(), tc.desc)
			require.Equal(t, tc.want, b.probe.take(), tc.desc)
			b.clock.Advance(time.Minute)
		}

		_, other := b.apply(t, "hedy@example.com", true)
		b.probe.take()
		_, err := b.service.Reject(b.ctx, b.admin, other.ID, "No photos of the rig")
		require.NoError(t, err)
		require.Equal(t, []string{idOf(other, models.ApplicationRejected)}, b.probe.take(), "a rejection")
		_, err = b.service.Reject(b.ctx, b.admin, other.ID, "No photos of the rig")
		require.NoError(t, err)
		require.Empty(t, b.probe.take(), "rejecting again announces nothing")
	})
}

func TestApprovalCreatesOneProviderWithTheChosenTier(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		grace, app := b.apply(t, "grace@example.com", true)
		approved, p, err := b.service.Approve(b.ctx, b.admin, app.ID, new(models.TierCommunity), new("  Welcome  "))
		require.NoError(t, err)
		require.Equal(t, models.ApplicationApproved, approved.Status)
		require.Equal(t, models.TierCommunity, *approved.Tier)
		require.Equal(t, models.TierCommunity, p.Tier)
		require.Equal(t, app.ID, p.ApplicationID)
		last := approved.Events[len(approved.Events)-1]
		require.Equal(t, models.ActionApproved, last.Action)
		require.Equal(t, "Welcome", *last.Message)
		require.Equal(t, models.TierCommunity, *last.Tier)
		roles, err := b.auth.Roles(b.ctx, grace.User.ID)
		require.NoError(t, err)
		require.Contains(t, roles, models.RoleProvider)

		again, p2, err := b.service.Approve(b.ctx, b.admin, app.ID, new(models.TierEnterprise), nil)
		require.NoError(t, err)
		require.Equal(t, p.ID, p2.ID, "approving twice returns the one provider")
		require.Len(t, again.Events, len(approved.Events), "and records nothing")
	})
}

func TestWatchStartsWithWhatAwaitsADecisionThenFollowsChanges(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, decided := b.apply(t, "carl@example.com", true)
		_, err := b.service.Reject(b.ctx, b.admin, decided.ID, "no")
		require.NoError(t, err)
		_, older := b.apply(t, "grace@example.com", true)
		_, newer := b.apply(t, "hedy@example.com", true)

		all, err := b.service.Watch(b.ctx, nil)
		require.NoError(t, err)
		one, err := b.service.Watch(b.ctx, &older.ID)
		require.NoError(t, err)
		_, err = b.service.Watch(b.ctx, new(int64(999999)))
		require.Equal(t, fault.NotFound, fault.CodeOf(err), "%v", err)

		next := func(ch <-chan *onboarding.Change) *onboarding.Change {
			t.Helper()
			select {
			case c, ok := <-ch:
				require.True(t, ok, "the watch ended early")
				return c
			case <-await.Timeout(t):
				t.Fatal("no change arrived")
				return nil
			}
		}
		for _, want := range []int64{newer.ID, older.ID} {
			c := next(all)
			require.True(t, c.Initial)
			require.Equal(t, want, c.Application.ID, "open applications, newest first; the decided one is left out")
		}
		c := next(one)
		require.True(t, c.Initial)
		require.Equal(t, older.ID, c.Application.ID)
		require.Len(t, c.Application.Gpus, 2, "with its answers")

		_, err = b.service.RequestInfo(b.ctx, b.admin, newer.ID, "Photos, please")
		require.NoError(t, err)
		_, err = b.service.RequestInfo(b.ctx, b.admin, older.ID, "Which UPS?")
		require.NoError(t, err)
		c = next(all)
		require.False(t, c.Initial)
		require.Equal(t, newer.ID, c.Application.ID)
		require.Equal(t, models.ApplicationInfoRequested, c.Application.Status)
		require.Len(t, c.Application.Events, 2, "with its history")
		require.Equal(t, older.ID, next(all).Application.ID)
		c = next(one)
		require.Equal(t, older.ID, c.Application.ID, "a watch of one application skips the others")
		require.Equal(t, models.ApplicationInfoRequested, c.Application.Status)
	})
}

func TestListAndLatestReadEachRelationOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		var apps []*models.ProviderApplication
		for _, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
			_, app := b.apply(t, email, true)
			apps = append(apps, app)
		}

		var page *onboarding.Page
		var err error
		n := b.queries.Count(func() { page, err = b.service.List(b.ctx, nil, 10, "") })
		require.NoError(t, err)
		require.Equal(t, 3, n, "applications, GPU entries, history: the count is the page's length")
		require.Equal(t, 3, page.TotalCount)
		require.False(t, page.HasNextPage)
		require.Equal(t, apps[2].ID, page.Items[0].ID, "newest first")
		require.Len(t, page.Items[0].Gpus, 2)
		require.Len(t, page.Items[0].Events, 1)

		n = b.queries.Count(func() { page, err = b.service.List(b.ctx, nil, 2, "") })
		require.NoError(t, err)
		require.Equal(t, 4, n, "and a count when more pages follow")
		require.Equal(t, 3, page.TotalCount)
		require.True(t, page.HasNextPage)
		require.Len(t, page.Items, 2)

		n = b.queries.Count(func() { page, err = b.service.List(b.ctx, nil, 2, onboarding.Cursor(page.Items[1].ID)) })
		require.NoError(t, err)
		require.Equal(t, 4, n, "a later page counts too")
		require.Equal(t, 3, page.TotalCount)
		require.False(t, page.HasNextPage)
		require.Equal(t, []int64{apps[0].ID}, []int64{page.Items[0].ID})

		status := models.ApplicationRejected
		page, err = b.service.List(b.ctx, &status, 10, "")
		require.NoError(t, err)
		require.Zero(t, page.TotalCount)
		require.Empty(t, page.Items)

		var latest *models.ProviderApplication
		n = b.queries.Count(func() { latest, err = b.service.Latest(b.ctx, apps[1].UserID) })
		require.NoError(t, err)
		require.Equal(t, 3, n)
		require.Equal(t, apps[1].ID, latest.ID)
		require.Len(t, latest.Gpus, 2)
		require.Equal(t, 0, latest.Gpus[0].Position)
		require.Len(t, latest.Events, 1)

		nobody := b.viewer(t, "nobody@example.com")
		latest, err = b.service.Latest(b.ctx, nobody.User.ID)
		require.NoError(t, err)
		require.Nil(t, latest)
	})
}
