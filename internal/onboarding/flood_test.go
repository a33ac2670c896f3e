package onboarding_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fault/faulttest"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// notices returns the notifications admin holds about app, oldest first.
func (b *bundle) notices(t *testing.T, admin *auth.Viewer, app *models.ProviderApplication) []*models.Notification {
	t.Helper()
	var all, out []*models.Notification
	require.NoError(t, b.db.NewSelect().Model(&all).Where("user_id = ?", admin.User.ID).OrderExpr("id ASC").Scan(b.ctx))
	for _, n := range all {
		if n.Params["applicationId"] == strconv.FormatInt(app.ID, 10) {
			out = append(out, n)
		}
	}
	return out
}

// unreadNotices returns the unread ones of notices.
func (b *bundle) unreadNotices(t *testing.T, admin *auth.Viewer, app *models.ProviderApplication) []*models.Notification {
	t.Helper()
	var out []*models.Notification
	for _, n := range b.notices(t, admin, app) {
		if n.ReadAt == nil {
			out = append(out, n)
		}
	}
	return out
}

// actions lists app's history as stored now.
func (b *bundle) actions(t *testing.T, app *models.ProviderApplication) []models.ApplicationAction {
	t.Helper()
	got, err := b.service.Get(b.ctx, app.ID)
	require.NoError(t, err)
	out := make([]models.ApplicationAction, 0, len(got.Events))
	for _, e := range got.Events {
		out = append(out, e.Action)
	}
	return out
}

// edit updates app as applicant with maintenance notes notes, then moves
// the clock on a second.
func (b *bundle) edit(t *testing.T, applicant *auth.Viewer, app *models.ProviderApplication, notes string) (*models.ProviderApplication, error) {
	t.Helper()
	got, err := b.service.Update(b.ctx, applicant, app.ID, input(applicant.User.Email, true, notes), nil)
	b.clock.Advance(time.Second)
	return got, err
}

func TestIssue9Point5HundredEditsLeaveOneUnreadNoticePerAdminAndOneHistoryStep(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		admins := []*auth.Viewer{b.admin, b.viewer(t, "hedy@example.com", models.RoleAdmin)}
		grace, app := b.apply(t, "grace@example.com", false)
		b.probe.take()

		var lastEdit time.Time
		for i := range 100 {
			lastEdit = b.clock.Now()
			got, err := b.edit(t, grace, app, fmt.Sprintf("edit %d", i))
			require.NoError(t, err)
			require.Equal(t, models.ApplicationSubmitted, got.Status)
		}

		for _, admin := range admins {
			ns := b.notices(t, admin, app)
			require.Len(t, ns, 1, "%s: the submission's notice only", admin.User.Email)
			require.Nil(t, ns[0].ReadAt)
			require.True(t, app.SubmittedAt.Equal(ns[0].CreatedAt), "an edit renews nothing either")
		}
		got, err := b.service.Get(b.ctx, app.ID)
		require.NoError(t, err)
		require.Equal(t, []models.ApplicationAction{models.ActionSubmitted, models.ActionResubmitted}, b.actions(t, app),
			"the hundred edits are one step")
		edited := got.Events[1]
		require.Equal(t, grace.User.ID, edited.ActorUserID)
		require.True(t, lastEdit.Equal(edited.At), "the step is as late as the last edit: %v", edited.At)
		require.Equal(t, "edit 99", *got.MaintenanceNotes, "every edit is stored")
		require.Zero(t, got.Resubmissions, "edits are not resubmissions")
		require.Len(t, b.probe.take(), 100, "each edit is announced to the review pages")
	})
}

func TestIssue9Point5AnEditThatChangesNoAnswerChangesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc  string
		input func(email string) onboarding.Input
	}{
		{"the same answers", func(email string) onboarding.Input { return input(email, false, "first answers") }},
		{"the same answers with spaces the form trims", func(email string) onboarding.Input {
			in := input("  "+email+" ", false, "  first answers\n")
			in.FullName = " Grace Hopper "
			in.Gpus[0].ModelKey = " H100_SXM_80GB "
			return in
		}},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		for i, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				email := fmt.Sprintf("grace%d@example.com", i)
				grace, app := b.apply(t, email, false)
				b.probe.take()
				notices := b.notices(t, b.admin, app)

				got, err := b.service.Update(b.ctx, grace, app.ID, tc.input(email), nil)
				require.NoError(t, err)
				require.Equal(t, models.ApplicationSubmitted, got.Status)
				require.True(t, app.UpdatedAt.Equal(got.UpdatedAt), "updated_at stays")
				require.Len(t, got.Events, 1, "no history step")
				require.Empty(t, b.probe.take(), "nothing announced")
				require.Equal(t, notices, b.notices(t, b.admin, app), "no notification")

				// After a real edit, repeating it does not move the step.
				_, err = b.edit(t, grace, app, "new answers")
				require.NoError(t, err)
				before, err := b.service.Get(b.ctx, app.ID)
				require.NoError(t, err)
				b.probe.take()
				again, err := b.edit(t, grace, app, "new answers")
				require.NoError(t, err)
				require.Equal(t, before.Events, again.Events)
				require.True(t, before.UpdatedAt.Equal(again.UpdatedAt))
				require.Empty(t, b.probe.take())
			})
		}
	})
}

func TestIssue9Point5AStatusChangeNotifiesEachAdminOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		reader, idle := b.admin, b.viewer(t, "hedy@example.com", models.RoleAdmin)
		grace, app := b.apply(t, "grace@example.com", false)
		for _, admin := range []*auth.Viewer{reader, idle} {
			require.Len(t, b.unreadNotices(t, admin, app), 1, "a submission tells each admin")
		}
		first := b.notices(t, idle, app)[0]
		_, err := b.notify.MarkRead(b.ctx, reader.User.ID, nil)
		require.NoError(t, err)

		_, err = b.service.RequestInfo(b.ctx, reader, app.ID, "Which UPS do you run?")
		require.NoError(t, err)
		resubmittedAt := b.clock.Now()
		_, err = b.edit(t, grace, app, "APC Smart-UPS")
		require.NoError(t, err)

		readerNotices := b.notices(t, reader, app)
		require.Len(t, readerNotices, 2, "an admin who read the first notice gets a new one")
		require.Nil(t, readerNotices[1].ReadAt)
		require.Contains(t, readerNotices[1].Body, "resubmitted")
		idleNotices := b.notices(t, idle, app)
		require.Len(t, idleNotices, 1, "an admin who did not read it has it renewed")
		renewed := idleNotices[0]
		require.Equal(t, first.ID, renewed.ID)
		require.Nil(t, renewed.ReadAt)
		require.Equal(t, onboarding.KindApplicationSubmitted, renewed.Kind)
		require.Contains(t, renewed.Body, "resubmitted")
		require.True(t, resubmittedAt.Equal(renewed.CreatedAt), "dated by the resubmission")

		// A hundred resubmissions in a row: one status change, then edits.
		_, err = b.service.RequestInfo(b.ctx, reader, app.ID, "And its runtime?")
		require.NoError(t, err)
		for i := range 100 {
			_, err := b.edit(t, grace, app, fmt.Sprintf("APC Smart-UPS, %d minutes", i))
			require.NoError(t, err)
		}
		require.Len(t, b.notices(t, reader, app), 2, "renewed, not added")
		require.Len(t, b.notices(t, idle, app), 1)
		for _, admin := range []*auth.Viewer{reader, idle} {
			require.Len(t, b.unreadNotices(t, admin, app), 1, "one unread notice per application")
		}
		require.Equal(t, []models.ApplicationAction{
			models.ActionSubmitted, models.ActionInfoRequested, models.ActionResubmitted, models.ActionInfoRequested, models.ActionResubmitted,
		}, b.actions(t, app))
		got, err := b.service.Get(b.ctx, app.ID)
		require.NoError(t, err)
		require.Equal(t, 2, got.Resubmissions)
	})
}

func TestIssue9Point5TheResubmissionPastTheCapIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		cfg  onboarding.Config
		max  int
	}{
		{"the default cap", onboarding.Config{}, onboarding.DefaultMaxResubmissions},
		{"a configured cap", onboarding.Config{MaxResubmissions: 2}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				b := setupWith(t, db, tc.cfg)
				grace, app := b.apply(t, "grace@example.com", false)
				for i := range tc.max {
					_, err := b.service.RequestInfo(b.ctx, b.admin, app.ID, fmt.Sprintf("Question %d", i))
					require.NoError(t, err)
					_, err = b.edit(t, grace, app, fmt.Sprintf("answer %d", i))
					require.NoError(t, err, "resubmission %d", i+1)
					_, err = b.edit(t, grace, app, fmt.Sprintf("answer %d, corrected", i))
					require.NoError(t, err, "an edit awaiting review is not a resubmission")
				}
				_, err := b.service.RequestInfo(b.ctx, b.admin, app.ID, "One more question")
				require.NoError(t, err)
				before, err := b.service.Get(b.ctx, app.ID)
				require.NoError(t, err)
				notices := b.notices(t, b.admin, app)
				b.probe.take()

				got, err := b.edit(t, grace, app, "one answer too many")
				faulttest.RequireProblem(t, err, "id", fault.TooMany)
				require.Nil(t, got)

				after, err := b.service.Get(b.ctx, app.ID)
				require.NoError(t, err)
				require.Equal(t, before, after, "nothing changed")
				require.Equal(t, models.ApplicationInfoRequested, after.Status)
				require.Equal(t, tc.max, after.Resubmissions)
				require.Equal(t, notices, b.notices(t, b.admin, app), "no admin told")
				require.Empty(t, b.probe.take(), "nothing announced")

				// The reviewers decide on the answers they have.
				_, err = b.service.Reject(b.ctx, b.admin, app.ID, "Not enough detail")
				require.NoError(t, err)
			})
		})
	}
}

func TestIssue9Point5ApplyingAgainPastTheCapOfRejectionsIsRefused(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupWith(t, db, onboarding.Config{MaxResubmissions: 2})
		grace := b.viewer(t, "grace@example.com")
		for i := range 3 { // the first application and two more
			app, err := b.service.Submit(b.ctx, grace, input("grace@example.com", false, fmt.Sprintf("try %d", i)))
			require.NoError(t, err, "application %d", i+1)
			_, err = b.service.Reject(b.ctx, b.admin, app.ID, "No UPS")
			require.NoError(t, err)
		}
		b.probe.take()

		got, err := b.service.Submit(b.ctx, grace, input("grace@example.com", true, "with UPS now"))
		faulttest.RequireProblem(t, err, "input", fault.TooMany)
		require.Nil(t, got)
		n, err := db.NewSelect().Model((*models.ProviderApplication)(nil)).Where("user_id = ?", grace.User.ID).Count(b.ctx)
		require.NoError(t, err)
		require.EqualValues(t, 3, n, "nothing stored")
		require.Empty(t, b.probe.take(), "nothing announced")

		_, other := b.apply(t, "hedy@example.com", true)
		require.Equal(t, models.ApplicationSubmitted, other.Status, "other applicants are not affected")
	})
}
