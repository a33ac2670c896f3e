package onboarding_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// change is a field change as the tests write it: "" for a value not given.
type change struct{ field, before, after string }

func changesOf(ev *models.ApplicationEvent) []change {
	out := []change{}
	for _, c := range ev.FieldChanges {
		x := change{field: c.Field}
		if c.Before != nil {
			x.before = *c.Before
		}
		if c.After != nil {
			x.after = *c.After
		}
		out = append(out, x)
	}
	return out
}

// Issue 11 point 3: the empty form gets every problem in one answer, UPS
// unanswered included, and nothing is stored.
func TestEmptyApplicationReportsEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		grace := b.viewer(t, "grace@example.com")
		empty := onboarding.Input{
			FullName: "Grace Hopper", Email: "grace@example.com", UpsUnanswered: true, CommitmentMonths: 12,
			Gpus: []onboarding.GPUInput{{Quantity: 1, Availability: availability.Input{Kind: models.AvailabilityAlways}}},
		}
		_, err := b.service.Submit(b.ctx, grace, empty)
		v, ok := fault.AsValidation(err)
		require.True(t, ok, "a validation error: %v", err)
		got := map[string]fault.ProblemCode{}
		for _, p := range v.Problems {
			got[p.Field] = p.Code
		}
		require.Equal(t, map[string]fault.ProblemCode{
			"input.upsProtected":        fault.Required,
			"input.gpus.0.modelKey":     fault.UnknownModel,
			"input.gpus.0.ramGb":        fault.OutOfRange,
			"input.gpus.0.uploadGbps":   fault.OutOfRange,
			"input.gpus.0.downloadGbps": fault.OutOfRange,
			"input.gpus.0.location":     fault.Required,
		}, got)
		mine, err := b.service.Latest(b.ctx, grace.User.ID)
		require.NoError(t, err)
		require.Nil(t, mine, "nothing is stored")
	})
}

// Issue 11 point 5: the applicant answers the reviewer's question with a
// reply sent with the resubmission; the reviewers read, beside it, what
// changed since the submission, field by field, from the answers each step
// keeps. A later edit in the same turn moves the same step on.
func TestResubmissionCarriesAReplyAndWhatChanged(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		grace, app := b.apply(t, "grace@example.com", false)
		_, err := b.service.RequestInfo(b.ctx, b.admin, app.ID, "Which UPS, and are the L4s on at night?")
		require.NoError(t, err)

		in := input("grace@example.com", true, "APC Smart-UPS 3000")
		in.Gpus[1].Availability = availability.Input{Kind: models.AvailabilityWeekly, TimeZone: new("Europe/Lisbon"),
			Windows: []models.AvailabilityWindow{{Day: models.Monday, Start: "20:00", End: "08:00"}}}
		got, err := b.service.Update(b.ctx, grace, app.ID, in, new("  An APC Smart-UPS 3000.\nThe L4s run overnight only.  "))
		require.NoError(t, err)
		require.Equal(t, models.ApplicationSubmitted, got.Status)
		last := got.Events[len(got.Events)-1]
		require.Equal(t, models.ActionResubmitted, last.Action)
		require.Equal(t, "An APC Smart-UPS 3000.\nThe L4s run overnight only.", *last.Message, "the reply, trimmed")
		require.Equal(t, []change{
			{"gpus.1.availability.kind", "ALWAYS", "WEEKLY"},
			{"gpus.1.availability.timeZone", "", "Europe/Lisbon"},
			{"gpus.1.availability.windows", "", "MONDAY 20:00-08:00"},
			{"upsProtected", "false", "true"},
			{"maintenanceNotes", "first answers", "APC Smart-UPS 3000"},
		}, changesOf(last))
		require.Nil(t, got.Events[0].FieldChanges, "the submission changes nothing")
		require.Nil(t, got.Events[1].FieldChanges, "nor does the reviewer's question")

		// The applicant edits again before a decision: one step, changes
		// still counted from the submission, the reply kept.
		in.Gpus = in.Gpus[:1]
		again, err := b.service.Update(b.ctx, grace, app.ID, in, nil)
		require.NoError(t, err)
		require.Len(t, again.Events, len(got.Events), "the same step")
		last = again.Events[len(again.Events)-1]
		require.Equal(t, "An APC Smart-UPS 3000.\nThe L4s run overnight only.", *last.Message)
		require.Equal(t, []change{
			{"upsProtected", "false", "true"},
			{"maintenanceNotes", "first answers", "APC Smart-UPS 3000"},
			{"gpus.1.model", "L4 24GB", ""},
			{"gpus.1.quantity", "2", ""},
			{"gpus.1.ramGb", "64", ""},
			{"gpus.1.uploadGbps", "1", ""},
			{"gpus.1.downloadGbps", "1", ""},
			{"gpus.1.availability.kind", "ALWAYS", ""},
			{"gpus.1.location.city", "Lisbon", ""},
		}, changesOf(last), "a removed entry's answers are gone")

		// The queue and the live watch read the same changes.
		page, err := b.service.List(b.ctx, nil, 10, "")
		require.NoError(t, err)
		require.Equal(t, changesOf(last), changesOf(page.Items[0].Events[len(page.Items[0].Events)-1]))
	})
}

// A reply is multi-line text of at most MaxMessageLength characters; a
// bad one is reported with the form's problems and changes nothing.
func TestBadReplyChangesNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		grace, app := b.apply(t, "grace@example.com", false)
		_, err := b.service.RequestInfo(b.ctx, b.admin, app.ID, "Which UPS?")
		require.NoError(t, err)
		bad := input("grace@example.com", true, "APC")
		bad.Gpus[0].RAMGb = 0
		_, err = b.service.Update(b.ctx, grace, app.ID, bad, new(strings.Repeat("é", onboarding.MaxMessageLength+1)))
		v, ok := fault.AsValidation(err)
		require.True(t, ok, "a validation error: %v", err)
		require.ElementsMatch(t, []fault.Problem{
			{Field: "input.gpus.0.ramGb", Code: fault.OutOfRange, Message: v.Problems[0].Message},
			{Field: "reply", Code: fault.TooLong, Message: v.Problems[1].Message},
		}, v.Problems, "both problems in one answer")
		still, err := b.service.Get(b.ctx, app.ID)
		require.NoError(t, err)
		require.Equal(t, models.ApplicationInfoRequested, still.Status)
		require.Len(t, still.Events, 2)
	})
}

// Issue 11 point 8: the review queue's tabs count every status.
func TestCountByStatusCountsEveryStatus(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		counts, err := b.service.CountByStatus(b.ctx)
		require.NoError(t, err)
		require.Equal(t, []onboarding.StatusCount{
			{Status: models.ApplicationSubmitted}, {Status: models.ApplicationInfoRequested},
			{Status: models.ApplicationApproved}, {Status: models.ApplicationRejected},
		}, counts, "every status, zero when none")

		_, a1 := b.apply(t, "a@example.com", true)
		_, a2 := b.apply(t, "b@example.com", true)
		_, _ = b.apply(t, "c@example.com", true)
		_, a4 := b.apply(t, "d@example.com", true)
		_, _, err = b.service.Approve(b.ctx, b.admin, a1.ID, nil, nil)
		require.NoError(t, err)
		_, err = b.service.RequestInfo(b.ctx, b.admin, a2.ID, "UPS model?")
		require.NoError(t, err)
		_, err = b.service.Reject(b.ctx, b.admin, a4.ID, "Not in a supported region")
		require.NoError(t, err)
		counts, err = b.service.CountByStatus(b.ctx)
		require.NoError(t, err)
		require.Equal(t, []onboarding.StatusCount{
			{Status: models.ApplicationSubmitted, Count: 1}, {Status: models.ApplicationInfoRequested, Count: 1},
			{Status: models.ApplicationApproved, Count: 1}, {Status: models.ApplicationRejected, Count: 1},
		}, counts)
	})
}

// forgetAnswers clears the answers of app's steps, as on an application
// submitted before steps kept them (migration 20261204000001 added the
// column without filling it).
func forgetAnswers(t *testing.T, b *bundle, app *models.ProviderApplication) {
	t.Helper()
	_, err := b.db.NewUpdate().Model((*models.ApplicationEvent)(nil)).Set("answers = NULL").
		Where("application_id = ?", app.ID).Exec(b.ctx)
	require.NoError(t, err)
	old, err := b.service.Get(b.ctx, app.ID)
	require.NoError(t, err)
	for _, ev := range old.Events {
		require.Nil(t, ev.Answers, "an old step keeps no answers")
	}
}

// An application open when answers began to be kept has none on its
// submission step: the resubmission first keeps the answers as they stood
// there, so the reviewers still read what it changed.
func TestResubmissionOfAnOldApplicationShowsWhatChanged(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		grace, app := b.apply(t, "grace@example.com", false)
		forgetAnswers(t, b, app)
		_, err := b.service.RequestInfo(b.ctx, b.admin, app.ID, "Which UPS?")
		require.NoError(t, err)

		got, err := b.service.Update(b.ctx, grace, app.ID, input("grace@example.com", true, "APC Smart-UPS 3000"), new("An APC."))
		require.NoError(t, err)
		require.Len(t, got.Events, 3)
		require.Equal(t, models.ActionSubmitted, got.Events[0].Action)
		require.Contains(t, got.Events[0].Answers, models.ApplicationAnswer{Field: "maintenanceNotes", Value: "first answers"},
			"the submission step keeps the answers as they stood")
		require.Equal(t, []change{
			{"upsProtected", "false", "true"},
			{"maintenanceNotes", "first answers", "APC Smart-UPS 3000"},
		}, changesOf(got.Events[2]))
	})
}

// The same holds for an edit while the old application awaits a decision.
func TestEditOfAnOldApplicationShowsWhatChanged(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		grace, app := b.apply(t, "grace@example.com", false)
		forgetAnswers(t, b, app)

		got, err := b.service.Update(b.ctx, grace, app.ID, input("grace@example.com", false, "second answers"), nil)
		require.NoError(t, err)
		require.Len(t, got.Events, 2)
		require.Equal(t, models.ActionResubmitted, got.Events[1].Action)
		require.Equal(t, []change{{"maintenanceNotes", "first answers", "second answers"}}, changesOf(got.Events[1]))
	})
}

// A reply answers a reviewer's question: on an application that is not
// awaiting one it is refused (INVALID on reply) and changes nothing, the
// reply that answered the last question included.
func TestReplyIsRefusedUnlessInformationWasRequested(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		grace, app := b.apply(t, "grace@example.com", false)
		refused := func(in onboarding.Input, reply string) *models.ProviderApplication {
			t.Helper()
			before, err := b.service.Get(b.ctx, app.ID)
			require.NoError(t, err)
			_, err = b.service.Update(b.ctx, grace, app.ID, in, &reply)
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "a validation error: %v", err)
			require.Len(t, v.Problems, 1)
			require.Equal(t, "reply", v.Problems[0].Field)
			require.Equal(t, fault.InvalidValue, v.Problems[0].Code)
			after, err := b.service.Get(b.ctx, app.ID)
			require.NoError(t, err)
			require.Equal(t, before, after, "nothing changed")
			return after
		}

		// Awaiting a decision, no question asked.
		still := refused(input("grace@example.com", true, "edited"), "Nobody asked, but here it is.")
		require.Equal(t, models.ApplicationSubmitted, still.Status)
		require.Len(t, still.Events, 1)

		// Asked, answered, then a second reply in the same turn: the first
		// reply stays on the resubmission step.
		_, err := b.service.RequestInfo(b.ctx, b.admin, app.ID, "Which UPS?")
		require.NoError(t, err)
		_, err = b.service.Update(b.ctx, grace, app.ID, input("grace@example.com", true, "APC"), new("An APC Smart-UPS 3000."))
		require.NoError(t, err)
		still = refused(input("grace@example.com", true, "APC, twice"), "Actually two of them.")
		last := still.Events[len(still.Events)-1]
		require.Equal(t, models.ActionResubmitted, last.Action)
		require.Equal(t, "An APC Smart-UPS 3000.", *last.Message)
		require.Equal(t, "APC", *still.MaintenanceNotes)

		// Without a reply the same edit is taken, the reply kept.
		edited, err := b.service.Update(b.ctx, grace, app.ID, input("grace@example.com", true, "APC, twice"), new("   "))
		require.NoError(t, err)
		require.Len(t, edited.Events, len(still.Events), "folded into the same step")
		require.Equal(t, "An APC Smart-UPS 3000.", *edited.Events[len(edited.Events)-1].Message)
		require.Equal(t, "APC, twice", *edited.MaintenanceNotes)
	})
}
