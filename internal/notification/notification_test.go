package notification_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestWelcomeHookNotifiesTheNewUserOnlyAfterCommit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		// The user's id exists only inside the sign-up transaction, so the
		// test subscribes from a hook that runs before Welcome.
		var sub <-chan bus.Message
		b.auth.OnSignUp(func(_ context.Context, _ bun.Tx, u *models.User) error {
			var err error
			sub, err = b.bus.Subscribe(t.Context(), notification.Channel(u.ID))
			return err
		})
		b.auth.OnSignUp(b.notify.Welcome)
		b.auth.OnSignUp(func(ctx context.Context, tx bun.Tx, u *models.User) error {
			n, err := tx.NewSelect().Model((*models.Notification)(nil)).Where("user_id = ?", u.ID).Count(ctx)
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "the welcome is stored in the sign-up transaction")
			requireNothingYet(t, sub, "nothing is announced before the commit")
			return nil
		})

		u, _, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: "ada@example.com", Password: "correct horse battery", Name: "Ada Lovelace"}, models.SessionCookie)
		require.NoError(t, err)

		announced := nextMessage(t, sub)
		require.Equal(t, u.ID, announced.UserID)
		require.Equal(t, notification.KindWelcome, announced.Kind)
		require.Equal(t, map[string]string{"name": "Ada Lovelace"}, announced.Params)
		require.Contains(t, announced.Body, "Ada Lovelace")
		require.NotEmpty(t, announced.Title)
		require.Nil(t, announced.ReadAt)

		page, err := b.notify.List(b.ctx, u.ID, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		requireSameNotification(t, announced, page.Items[0])
		require.True(t, start.Equal(page.Items[0].CreatedAt), "created_at comes from the clock")
		require.Equal(t, 1, page.UnreadCount)
	})
}

func TestRolledBackTransactionAnnouncesNothing(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	cases := []struct {
		desc string
		// run adds a notification for u in a transaction that fails.
		run func(t *testing.T, b *bundle, u *models.User) error
	}{
		{desc: "welcome in a sign-up whose later hook fails", run: func(t *testing.T, b *bundle, u *models.User) error {
			b.auth.OnSignUp(b.notify.Welcome)
			b.auth.OnSignUp(func(context.Context, bun.Tx, *models.User) error { return boom })
			_, _, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: "rollback@example.com", Password: "correct horse battery", Name: "Ada"}, models.SessionCookie)
			return err
		}},
		{desc: "welcome in a transaction that returns an error", run: func(t *testing.T, b *bundle, u *models.User) error {
			return b.db.InTx(b.ctx, func(ctx context.Context, tx bun.Tx) error {
				require.NoError(t, b.notify.Welcome(ctx, tx, u))
				return boom
			})
		}},
		{desc: "add in a transaction that returns an error", run: func(t *testing.T, b *bundle, u *models.User) error {
			return b.db.InTx(b.ctx, func(ctx context.Context, tx bun.Tx) error {
				require.NoError(t, b.notify.Add(ctx, tx, &models.Notification{UserID: u.ID, Kind: "TEST", Title: "t", Body: "b"}))
				return boom
			})
		}},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for i, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				t.Parallel()
				b := setup(t, db)
				u := b.user(t, fmt.Sprintf("user%d@example.com", i))
				subUser, err := b.bus.Subscribe(t.Context(), notification.Channel(u.ID))
				require.NoError(t, err)
				// A signing-up user's id exists only in its transaction:
				// listen on it from a hook that runs before the others.
				var subNew <-chan bus.Message
				b.auth.OnSignUp(func(_ context.Context, _ bun.Tx, nu *models.User) error {
					var err error
					subNew, err = b.bus.Subscribe(t.Context(), notification.Channel(nu.ID))
					return err
				})

				require.ErrorIs(t, tc.run(t, b, u), boom)

				n, err := db.NewSelect().Model((*models.Notification)(nil)).Count(b.ctx)
				require.NoError(t, err)
				require.Zero(t, n, "the notification was rolled back")
				// The memory bus delivers during Publish, and after-commit
				// hooks run before InTx returns: anything announced would
				// be waiting already.
				requireNothingYet(t, subUser, "a rolled-back transaction announces nothing")
				if subNew != nil {
					requireNothingYet(t, subNew, "a rolled-back sign-up announces nothing")
				}
			})
		}
	})
}

func TestListPagesNewestFirstWithCursors(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		other := b.user(t, "bob@example.com")
		var ns []*models.Notification
		for _, title := range []string{"one", "two", "three", "four", "five"} {
			ns = append(ns, b.add(t, u.ID, title))
			b.add(t, other.ID, "not yours: "+title)
		}
		one, two, three, four, five := ns[0], ns[1], ns[2], ns[3], ns[4]

		cases := []struct {
			desc    string
			first   int
			after   *models.Notification // nil: from the newest
			want    []*models.Notification
			hasNext bool
		}{
			{desc: "first page", first: 2, want: []*models.Notification{five, four}, hasNext: true},
			{desc: "second page", first: 2, after: four, want: []*models.Notification{three, two}, hasNext: true},
			{desc: "last, short page", first: 2, after: two, want: []*models.Notification{one}, hasNext: false},
			{desc: "page exactly as long as what is left", first: 4, after: five, want: []*models.Notification{four, three, two, one}, hasNext: false},
			{desc: "page one shorter than what is left", first: 3, after: five, want: []*models.Notification{four, three, two}, hasNext: true},
			{desc: "everything in one page", first: notification.MaxPageSize, want: []*models.Notification{five, four, three, two, one}, hasNext: false},
			{desc: "after the oldest is empty", first: 10, after: one, want: []*models.Notification{}, hasNext: false},
			{desc: "one at a time", first: 1, after: three, want: []*models.Notification{two}, hasNext: true},
		}
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				t.Parallel()
				after := ""
				if tc.after != nil {
					after = notification.Cursor(tc.after.ID)
				}
				page, err := b.notify.List(b.ctx, u.ID, tc.first, after)
				require.NoError(t, err)
				require.Equal(t, ids(tc.want...), ids(page.Items...))
				require.Equal(t, tc.hasNext, page.HasNextPage)
				require.Equal(t, 5, page.UnreadCount)
				for i, n := range page.Items {
					requireSameNotification(t, tc.want[i], n)
				}
			})
		}

		t.Run("walking the cursors visits every notification once", func(t *testing.T) {
			t.Parallel()
			var seen []int64
			after := ""
			for {
				page, err := b.notify.List(b.ctx, u.ID, 2, after)
				require.NoError(t, err)
				seen = append(seen, ids(page.Items...)...)
				if !page.HasNextPage {
					break
				}
				after = notification.Cursor(page.Items[len(page.Items)-1].ID)
			}
			require.Equal(t, ids(five, four, three, two, one), seen)
		})

		t.Run("a user without notifications gets an empty page", func(t *testing.T) {
			t.Parallel()
			page, err := b.notify.List(b.ctx, other.ID+1000, 10, "")
			require.NoError(t, err)
			require.Empty(t, page.Items)
			require.False(t, page.HasNextPage)
			require.Zero(t, page.UnreadCount)
		})
	})
}

func TestListRefusesBadPageArgumentsAsBadUserInput(t *testing.T) {
	t.Parallel()
	cursor := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		desc  string
		first int
		after string
		ok    bool
	}{
		{desc: "first of zero", first: 0},
		{desc: "negative first", first: -1},
		{desc: "first above the maximum", first: notification.MaxPageSize + 1},
		{desc: "first of one is fine", first: 1, ok: true},
		{desc: "first of the maximum is fine", first: notification.MaxPageSize, ok: true},
		{desc: "cursor that is not base64", first: 10, after: "not a cursor!"},
		{desc: "cursor in standard base64 with padding", first: 10, after: base64.StdEncoding.EncodeToString([]byte("notification:1"))},
		{desc: "cursor of another kind of object", first: 10, after: cursor("machine:1")},
		{desc: "cursor with a non-numeric id", first: 10, after: cursor("notification:abc")},
		{desc: "cursor with id zero", first: 10, after: cursor("notification:0")},
		{desc: "cursor with a negative id", first: 10, after: cursor("notification:-5")},
		{desc: "cursor with an id beyond int64", first: 10, after: cursor("notification:99999999999999999999")},
		{desc: "cursor of a plain number", first: 10, after: "42"},
		{desc: "cursor built by Cursor is fine", first: 10, after: notification.Cursor(42), ok: true},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				t.Parallel()
				page, err := b.notify.List(b.ctx, u.ID, tc.first, tc.after)
				if tc.ok {
					require.NoError(t, err)
					require.NotNil(t, page)
					return
				}
				require.Error(t, err)
				require.Nil(t, page)
				require.Equal(t, fault.Invalid, fault.CodeOf(err), "%v", err)
			})
		}
	})
}

func TestMarkReadTouchesOnlyTheUsersUnreadNotifications(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		other := b.user(t, "bob@example.com")
		a1, a2, a3 := b.add(t, u.ID, "a1"), b.add(t, u.ID, "a2"), b.add(t, u.ID, "a3")
		o1, o2 := b.add(t, other.ID, "o1"), b.add(t, other.ID, "o2")
		require.Equal(t, 3, b.unread(t, u.ID))
		require.Equal(t, 2, b.unread(t, other.ID))

		steps := []struct {
			desc        string
			ids         []int64
			changed     int
			unread      int
			otherUnread int
		}{
			{desc: "no ids change nothing", ids: []int64{}, changed: 0, unread: 3, otherUnread: 2},
			{desc: "own id and another user's id: only the own one changes", ids: []int64{a1.ID, o1.ID}, changed: 1, unread: 2, otherUnread: 2},
			{desc: "only another user's ids change nothing", ids: []int64{o1.ID, o2.ID}, changed: 0, unread: 2, otherUnread: 2},
			{desc: "an id already read is not counted again", ids: []int64{a1.ID}, changed: 0, unread: 2, otherUnread: 2},
			{desc: "an unknown id is ignored", ids: []int64{o2.ID + 1000}, changed: 0, unread: 2, otherUnread: 2},
			{desc: "all (nil ids) marks the rest", ids: nil, changed: 2, unread: 0, otherUnread: 2},
			{desc: "all again changes nothing", ids: nil, changed: 0, unread: 0, otherUnread: 2},
		}
		for _, step := range steps {
			b.clock.Advance(time.Second)
			changed, err := b.notify.MarkRead(b.ctx, u.ID, step.ids)
			require.NoError(t, err, step.desc)
			require.Equal(t, step.changed, changed, step.desc)
			require.Equal(t, step.unread, b.unread(t, u.ID), step.desc)
			require.Equal(t, step.otherUnread, b.unread(t, other.ID), step.desc)
		}

		page, err := b.notify.List(b.ctx, u.ID, 10, "")
		require.NoError(t, err)
		require.Equal(t, ids(a3, a2, a1), ids(page.Items...))
		for _, n := range page.Items {
			require.NotNil(t, n.ReadAt, "%d is read", n.ID)
		}
		readAt := map[int64]int64{}
		for _, n := range page.Items {
			readAt[n.ID] = n.ReadAt.Sub(start).Nanoseconds()
		}
		require.Less(t, readAt[a1.ID], readAt[a2.ID], "a1 kept the time it was first read at")
		require.Equal(t, readAt[a2.ID], readAt[a3.ID], "a2 and a3 were read together")

		otherPage, err := b.notify.List(b.ctx, other.ID, 10, "")
		require.NoError(t, err)
		for _, n := range otherPage.Items {
			require.Nil(t, n.ReadAt, "another user's %d stays unread", n.ID)
		}

		t.Run("more than a page of ids is refused", func(t *testing.T) {
			many := make([]int64, notification.MaxPageSize+1)
			for i := range many {
				many[i] = int64(i + 1)
			}
			_, err := b.notify.MarkRead(b.ctx, other.ID, many)
			require.Equal(t, fault.Invalid, fault.CodeOf(err))
			v, ok := fault.AsValidation(err)
			require.True(t, ok)
			require.Equal(t, "ids", v.Problems[0].Field)
			require.Equal(t, 2, b.unread(t, other.ID))
		})
	})
}

func TestAddStoresMissingParamsAsEmpty(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		n := &models.Notification{UserID: u.ID, Kind: "TEST", Title: "t", Body: "b"}
		require.NoError(t, b.notify.Add(b.ctx, db.DB, n))
		page, err := b.notify.List(b.ctx, u.ID, 1, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		require.NotNil(t, page.Items[0].Params)
		require.Empty(t, page.Items[0].Params)
	})
}
