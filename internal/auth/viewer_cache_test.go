package auth_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// watchedBus tells which channels have been subscribed to.
type watchedBus struct {
	bus.Bus
	mu   sync.Mutex
	subs map[string]bool
}

func (w *watchedBus) Subscribe(ctx context.Context, channel string) (<-chan bus.Message, error) {
	ch, err := w.Bus.Subscribe(ctx, channel)
	if err == nil {
		w.mu.Lock()
		w.subs[channel] = true
		w.mu.Unlock()
	}
	return ch, err
}

func (w *watchedBus) subscribed(n int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.subs) >= n
}

// replicas are two account services on one database and one bus, as two
// replicas of the server are, on one manual clock; b listens for what a
// changes.
func replicas(t *testing.T, db *store.DB, sessionTTL time.Duration) (a, b *auth.Service, clk *clock.Manual) {
	t.Helper()
	clk = clock.NewManual(start)
	shared := &watchedBus{Bus: bus.NewMemory(), subs: map[string]bool{}}
	cfg := auth.Config{PasswordParams: authtest.Params, SessionTTL: sessionTTL}
	a = auth.New(auth.Deps{DB: db, Clock: clk, Logger: slog.New(slog.DiscardHandler), Bus: shared}, cfg)
	b = auth.New(auth.Deps{DB: db, Clock: clk, Logger: slog.New(slog.DiscardHandler), Bus: shared}, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.ListenForRevocations(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	// Agent tokens, sessions ended, users changed.
	await.True(t, func() bool { return shared.subscribed(3) }, "replica b does not listen")
	return a, b, clk
}

// A signed-in request, and a dashboard's socket reconnecting after a
// drill, authenticate without SQL while nothing about the viewer changed:
// a replica remembers the session. Whatever changes it on any
// replica (a language chosen, a role granted once committed, a log-out)
// is seen at once on the other, through the bus.
func TestASessionIsAnsweredFromMemoryUntilItChangesOnAnyReplica(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		a, b, _ := replicas(t, db, 0)
		user, sess, err := a.SignUp(ctx, auth.SignUpInput{Email: "ada@example.com", Password: "correct horse battery", Name: "Ada Lovelace"}, models.SessionCookie)
		require.NoError(t, err)
		first, err := a.Authenticate(ctx, sess.Token)
		require.NoError(t, err)
		q := storetest.CountQueries(db)

		_, err = b.Authenticate(ctx, sess.Token)
		require.NoError(t, err)
		// Once read, b answers from memory.
		require.Zero(t, q.Count(func() {
			v, err := b.Authenticate(ctx, sess.Token)
			require.NoError(t, err)
			require.Equal(t, user.ID, v.User.ID)
		}), "b answers the session from memory")

		// A copy each time: a caller changing it changes no one else's.
		v, err := b.Authenticate(ctx, sess.Token)
		require.NoError(t, err)
		v.User.Name = "someone else"
		v, err = b.Authenticate(ctx, sess.Token)
		require.NoError(t, err)
		require.Equal(t, "Ada Lovelace", v.User.Name)

		_, err = a.SetLanguage(ctx, user.ID, models.LanguageSpanish)
		require.NoError(t, err)
		await.True(t, func() bool {
			v, err := b.Authenticate(ctx, sess.Token)
			require.NoError(t, err)
			return v.User.Language == models.LanguageSpanish
		}, "b still shows the language before the change")

		require.NoError(t, db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return a.GrantRole(ctx, tx, user.ID, models.RoleProvider)
		}))
		a.UserChanged(ctx, user.ID)
		await.True(t, func() bool {
			v, err := b.Authenticate(ctx, sess.Token)
			require.NoError(t, err)
			return v.Has(models.RoleProvider)
		}, "b does not see the role granted on a")

		ended, err := a.LogOut(ctx, sess.Token)
		require.NoError(t, err)
		require.True(t, ended)
		await.True(t, func() bool {
			_, err := b.Authenticate(ctx, sess.Token)
			return fault.CodeOf(err) == fault.Unauthenticated
		}, "b still accepts the session a ended")
		_, ok, err := b.SessionExpiry(ctx, first.SessionID)
		require.NoError(t, err)
		require.False(t, ok, "nor do its sockets' checks")
	})
}

// Memory never outlives the session, and a change whose announcement was
// lost (here: made in the database behind the services' back) is read
// within the cache's bound of 30 s.
func TestARememberedSessionIsReadAgainWithin30sAndStillExpires(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		a, b, clk := replicas(t, db, 45*time.Second)
		user, sess, err := a.SignUp(ctx, auth.SignUpInput{Email: "ada@example.com", Password: "correct horse battery", Name: "Ada Lovelace"}, models.SessionCookie)
		require.NoError(t, err)
		first, err := b.Authenticate(ctx, sess.Token)
		require.NoError(t, err)
		_, err = db.NewUpdate().Model((*models.User)(nil)).Set("name = ?", "Ada King").Where("id = ?", user.ID).Exec(ctx)
		require.NoError(t, err)

		clk.Advance(29 * time.Second)
		v, err := b.Authenticate(ctx, sess.Token)
		require.NoError(t, err)
		require.Equal(t, "Ada Lovelace", v.User.Name, "remembered for now")
		clk.Advance(time.Second)
		v, err = b.Authenticate(ctx, sess.Token)
		require.NoError(t, err)
		require.Equal(t, "Ada King", v.User.Name, "read again after 30 s")

		clk.Advance(15 * time.Second) // the session's 45 s are up; b read it 15 s ago
		_, err = b.Authenticate(ctx, sess.Token)
		require.Equal(t, fault.Unauthenticated, fault.CodeOf(err), "an expired session is refused: %v", err)
		_, ok, err := b.SessionExpiry(ctx, first.SessionID)
		require.NoError(t, err)
		require.False(t, ok)
	})
}
