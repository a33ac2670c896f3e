package notification_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestRenewRewritesAnUnreadNotificationInPlaceWithoutAnnouncingIt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		first := b.add(t, u.ID, "one")
		b.add(t, u.ID, "two")
		sub, err := b.bus.Subscribe(t.Context(), notification.Channel(u.ID))
		require.NoError(t, err)

		n := &models.Notification{UserID: u.ID, Kind: "TEST", Title: "one, again", Body: "Body of one, again"}
		renewed, err := b.notify.Renew(b.ctx, b.db.DB, first.ID, n)
		require.NoError(t, err)
		require.True(t, renewed)
		require.Equal(t, first.ID, n.ID, "the same notification")
		require.True(t, b.clock.Now().Equal(n.CreatedAt), "dated now")
		require.Equal(t, map[string]string{}, n.Params)

		page, err := b.notify.List(b.ctx, u.ID, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 2, "nothing added")
		require.Equal(t, 2, page.UnreadCount)
		requireSameNotification(t, n, page.Items[1])
		// The memory bus delivers during Publish: anything announced would
		// be waiting already.
		requireNothingYet(t, sub, "a renewal is not announced")
	})
}

func TestRenewLeavesAReadOrAnotherUsersNotificationAlone(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u := b.user(t, "ada@example.com")
		other := b.user(t, "bob@example.com")
		read := b.add(t, u.ID, "read")
		_, err := b.notify.MarkRead(b.ctx, u.ID, []int64{read.ID})
		require.NoError(t, err)
		theirs := b.add(t, other.ID, "theirs")

		cases := []struct {
			desc string
			id   int64
		}{
			{"a notification already read", read.ID},
			{"another user's notification", theirs.ID},
			{"a notification that does not exist", theirs.ID + 1000},
		}
		for _, tc := range cases {
			n := &models.Notification{UserID: u.ID, Kind: "TEST", Title: "new", Body: "new"}
			renewed, err := b.notify.Renew(b.ctx, b.db.DB, tc.id, n)
			require.NoError(t, err, tc.desc)
			require.False(t, renewed, tc.desc)
			require.Zero(t, n.ID, tc.desc)
		}
		for _, want := range []*models.Notification{read, theirs} {
			got := new(models.Notification)
			require.NoError(t, db.NewSelect().Model(got).Where("id = ?", want.ID).Scan(b.ctx))
			requireSameNotification(t, want, got)
		}
	})
}
