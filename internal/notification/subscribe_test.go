package notification_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"go.uber.org/goleak"

	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// subscribe opens a subscription that ends with the test.
func (b *bundle) subscribe(t *testing.T, userID, afterID int64) <-chan *models.Notification {
	t.Helper()
	ch, err := b.notify.Subscribe(b.ctx, userID, afterID)
	require.NoError(t, err)
	return ch
}

func TestSubscribeReplaysNewerStoredNotificationsThenContinuesLiveWithoutDuplicates(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		other := b.user(t, "bob@example.com")
		one := b.add(t, u.ID, "one")
		two := b.add(t, u.ID, "two")
		b.add(t, other.ID, "not yours")
		three := b.add(t, u.ID, "three")
		// four is stored before the subscription reads its backlog but
		// announced only after: it reaches the subscriber both ways.
		b.bus.hold()
		four := b.add(t, u.ID, "four")

		ch := b.subscribe(t, u.ID, one.ID)
		b.bus.release(t, false)
		b.add(t, other.ID, "still not yours")
		five := b.add(t, u.ID, "five")

		// Live events arrive in publish order, so a duplicate of four would
		// come before five.
		for _, want := range []*models.Notification{two, three, four, five} {
			requireSameNotification(t, want, next(t, ch))
		}
		six := b.add(t, u.ID, "six")
		requireSameNotification(t, six, next(t, ch))
	})
}

func TestSubscribeWithoutAfterIDStreamsOnlyNewNotifications(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		other := b.user(t, "bob@example.com")
		b.add(t, u.ID, "old")

		ch := b.subscribe(t, u.ID, 0)
		b.add(t, other.ID, "not yours")
		live := b.add(t, u.ID, "live")
		requireSameNotification(t, live, next(t, ch))
	})
}

func TestSubscribeWithTheNewestIDReplaysNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		b.add(t, u.ID, "one")
		newest := b.add(t, u.ID, "two")

		ch := b.subscribe(t, u.ID, newest.ID)
		live := b.add(t, u.ID, "three")
		requireSameNotification(t, live, next(t, ch))
	})
}

func TestSubscribeDeliversNotificationsAnnouncedOutOfIDOrder(t *testing.T) {
	t.Parallel()
	// Two transactions may commit, or announce after committing, in the
	// other order than their ids: both notifications still reach the user.
	cases := []struct {
		desc     string
		backlog  bool // subscribe after a stored notification, replaying it
		reversed bool
	}{
		{desc: "announced in id order", reversed: false},
		{desc: "announced newest first", reversed: true},
		{desc: "announced newest first after a replay", backlog: true, reversed: true},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for i, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				t.Parallel()
				b := setup(t, db)
				u := b.user(t, fmt.Sprintf("user%d@example.com", i))
				var afterID int64
				var replayed []*models.Notification
				if tc.backlog {
					afterID = b.add(t, u.ID, "seen").ID
					replayed = append(replayed, b.add(t, u.ID, "missed"))
				}
				ch := b.subscribe(t, u.ID, afterID)
				for _, want := range replayed {
					requireSameNotification(t, want, next(t, ch))
				}

				b.bus.hold()
				older := b.add(t, u.ID, "older")
				newer := b.add(t, u.ID, "newer")
				b.bus.release(t, tc.reversed)
				last := b.add(t, u.ID, "last")
				want := ids(older, newer, last)
				if tc.reversed {
					want = ids(newer, older, last)
				}
				require.Equal(t, want, idsUntil(t, ch, last.ID))
			})
		}
	})
}

func TestSubscribeWithReplayAllReplaysEveryStoredNotification(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		other := b.user(t, "bob@example.com")
		one := b.add(t, u.ID, "one")
		b.add(t, other.ID, "not yours")
		two := b.add(t, u.ID, "two")

		ch := b.subscribe(t, u.ID, notification.ReplayAll)
		three := b.add(t, u.ID, "three")
		require.Equal(t, ids(one, two, three), idsUntil(t, ch, three.ID))
	})
}

func TestSubscribeDeliversNotificationsOfTransactionsCommittingOutOfIDOrder(t *testing.T) {
	t.Parallel()
	// SQLite runs one writer at a time; PostgreSQL lets the transaction
	// holding the older id commit last.
	db := storetest.Open(t, "postgres")
	b := setup(t, db)
	u := b.user(t, "ada@example.com")
	ch := b.subscribe(t, u.ID, 0)

	older := &models.Notification{UserID: u.ID, Kind: "TEST", Title: "older", Body: "b"}
	newer := &models.Notification{UserID: u.ID, Kind: "TEST", Title: "newer", Body: "b"}
	err := db.InTx(b.ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := b.notify.Add(ctx, tx, older); err != nil {
			return err
		}
		// A second, independent transaction commits (and announces) first.
		return db.InTx(b.ctx, func(ctx context.Context, tx bun.Tx) error {
			return b.notify.Add(ctx, tx, newer)
		})
	})
	require.NoError(t, err)
	require.Less(t, older.ID, newer.ID)
	last := b.add(t, u.ID, "last")
	require.Equal(t, ids(newer, older, last), idsUntil(t, ch, last.ID))
}

// TestSubscriptionClosesWhenContextEndsLeavingNoGoroutine is not parallel:
// it compares the goroutines alive before and after.
func TestSubscriptionClosesWhenContextEndsLeavingNoGoroutine(t *testing.T) {
	cases := []struct {
		desc string
		// backlog is how many stored notifications the subscription
		// replays and nobody reads: more than its buffer leaves it
		// blocked on sending when the context ends.
		backlog int
		live    int
	}{
		{desc: "idle subscription"},
		{desc: "subscription with unread live notifications", live: 3},
		{desc: "subscription blocked on a full buffer", backlog: 40},
	}
	for _, backend := range storetest.Backends {
		t.Run(backend, func(t *testing.T) {
			db := storetest.Open(t, backend)
			for i, tc := range cases {
				t.Run(tc.desc, func(t *testing.T) {
					b := setup(t, db)
					u := b.user(t, fmt.Sprintf("user%d@example.com", i))
					anchor := b.add(t, u.ID, "anchor")
					for range tc.backlog {
						b.add(t, u.ID, "backlog")
					}
					// Warm the connection pool so that its goroutines are
					// counted as already there.
					_, err := b.notify.List(b.ctx, u.ID, 1, "")
					require.NoError(t, err)
					before := goleak.IgnoreCurrent()

					ctx, cancel := context.WithCancel(b.ctx)
					ch, err := b.notify.Subscribe(ctx, u.ID, anchor.ID)
					require.NoError(t, err)
					for range tc.live {
						b.add(t, u.ID, "live")
					}
					cancel()
					// Nobody reads before the goroutines are gone: a sender
					// blocked on the full buffer must notice the end itself.
					goleak.VerifyNone(t, before)

					received := 0
					deadline := time.After(wait)
				drain:
					for {
						select {
						case _, ok := <-ch:
							if !ok {
								break drain
							}
							received++
						case <-deadline:
							t.Fatal("the subscription channel was not closed after its context ended")
						}
					}
					require.LessOrEqual(t, received, tc.backlog+tc.live)
				})
			}
		})
	}
}

// idsUntil collects the ids ch delivers up to and including lastID.
func idsUntil(t *testing.T, ch <-chan *models.Notification, lastID int64) []int64 {
	t.Helper()
	var got []int64
	for {
		n := next(t, ch)
		got = append(got, n.ID)
		if n.ID == lastID {
			return got
		}
	}
}
