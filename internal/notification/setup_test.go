package notification_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// start is the instant every test clock starts at.
var start = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// wait bounds every wait for an event that should come.
const wait = 5 * time.Second

// bundle is what a notification test works with.
type bundle struct {
	ctx    context.Context
	db     *store.DB
	clock  *clock.Manual
	bus    *heldBus
	auth   *auth.Service
	notify *notification.Service
}

// setup returns the notification and account services over db, sharing a
// manual clock and an in-memory bus that a test can hold.
func setup(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	clk := clock.NewManual(start)
	logger := slog.New(slog.DiscardHandler)
	b := &heldBus{Bus: bus.NewMemory()}
	t.Cleanup(func() { _ = b.Close() })
	return &bundle{
		ctx:    t.Context(),
		db:     db,
		clock:  clk,
		bus:    b,
		auth:   auth.New(auth.Deps{DB: db, Clock: clk, Logger: logger}, auth.Config{PasswordParams: authtest.Params}),
		notify: notification.New(notification.Deps{DB: db, Bus: b, Clock: clk, Logger: logger}, notification.Config{}),
	}
}

// user creates an account without sign-up hooks, so it has no notification.
func (b *bundle) user(t *testing.T, email string) *models.User {
	t.Helper()
	u, err := b.auth.CreateUser(b.ctx, auth.SignUpInput{Email: email, Password: "correct horse battery", Name: "Ada Lovelace"})
	require.NoError(t, err)
	return u
}

// add stores (and, unless the bus is held, announces) a notification for
// userID, then moves the clock on a minute so creation times differ.
func (b *bundle) add(t *testing.T, userID int64, title string) *models.Notification {
	t.Helper()
	n := &models.Notification{UserID: userID, Kind: "TEST", Title: title, Body: "Body of " + title, Params: map[string]string{"title": title}}
	require.NoError(t, b.notify.Add(b.ctx, b.db.DB, n))
	require.NotZero(t, n.ID)
	b.clock.Advance(time.Minute)
	return n
}

// unread returns userID's unread count.
func (b *bundle) unread(t *testing.T, userID int64) int {
	t.Helper()
	n, err := b.notify.UnreadCount(b.ctx, userID)
	require.NoError(t, err)
	return n
}

// heldBus is a bus whose announcements a test can hold back and release
// later, like a publish delayed on its way to Redis.
type heldBus struct {
	bus.Bus

	mu      sync.Mutex
	holding bool
	held    []bus.Message
}

// hold queues every later Publish until release.
func (h *heldBus) hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.holding = true
}

// release publishes the queued messages, newest first when reversed, and
// stops holding.
func (h *heldBus) release(t *testing.T, reversed bool) {
	t.Helper()
	h.mu.Lock()
	msgs := h.held
	h.held, h.holding = nil, false
	h.mu.Unlock()
	if reversed {
		slices.Reverse(msgs)
	}
	for _, m := range msgs {
		require.NoError(t, h.Bus.Publish(context.Background(), m.Channel, m.Payload))
	}
}

// Publish implements bus.Bus, queueing while the bus is held.
func (h *heldBus) Publish(ctx context.Context, channel string, payload []byte) error {
	h.mu.Lock()
	if h.holding {
		h.held = append(h.held, bus.Message{Channel: channel, Payload: bytes.Clone(payload)})
		h.mu.Unlock()
		return nil
	}
	h.mu.Unlock()
	return h.Bus.Publish(ctx, channel, payload)
}

// next returns the next notification of ch, failing if none comes or ch
// closes.
func next(t *testing.T, ch <-chan *models.Notification) *models.Notification {
	t.Helper()
	select {
	case n, ok := <-ch:
		require.True(t, ok, "subscription closed early")
		return n
	case <-await.Timeout(t):
		t.Fatal("no notification arrived")
		return nil
	}
}

// nextMessage returns the next bus message of ch decoded as a notification.
func nextMessage(t *testing.T, ch <-chan bus.Message) *models.Notification {
	t.Helper()
	select {
	case m, ok := <-ch:
		require.True(t, ok, "bus subscription closed early")
		n := new(models.Notification)
		require.NoError(t, json.Unmarshal(m.Payload, n))
		return n
	case <-await.Timeout(t):
		t.Fatal("no bus message arrived")
		return nil
	}
}

// requireNothingYet asserts ch holds no message now.
func requireNothingYet(t *testing.T, ch <-chan bus.Message, msg string) {
	t.Helper()
	select {
	case m := <-ch:
		t.Fatalf("%s: got %s", msg, m.Payload)
	default:
	}
}

// ids lists the ids of ns.
func ids(ns ...*models.Notification) []int64 {
	out := make([]int64, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

// requireSameNotification compares what a client sees of two notifications.
func requireSameNotification(t *testing.T, want, got *models.Notification) {
	t.Helper()
	require.Equal(t, want.ID, got.ID)
	require.Equal(t, want.UserID, got.UserID)
	require.Equal(t, want.Kind, got.Kind)
	require.Equal(t, want.Title, got.Title)
	require.Equal(t, want.Body, got.Body)
	require.Equal(t, want.Params, got.Params)
	require.True(t, want.CreatedAt.Equal(got.CreatedAt), "created_at: want %v, got %v", want.CreatedAt, got.CreatedAt)
}
