package platform_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// floodSize is how many aliased updateProviderApplication fields the
// issue's request carried: as many as one operation may alias.
const floodSize = 100

// floodRequest is one operation updating application id n times, each
// with other maintenance notes ("<round>: edit <i>"), and its variables.
func floodRequest(n int, id, email, round string) (string, map[string]any) {
	var q strings.Builder
	vars := map[string]any{"id": id}
	q.WriteString("mutation Flood($id: ID!")
	for i := range n {
		fmt.Fprintf(&q, ", $i%d: ProviderApplicationInput!", i)
		vars[fmt.Sprintf("i%d", i)] = mutate(email, func(m map[string]any) {
			m["upsProtected"] = true
			m["maintenanceNotes"] = fmt.Sprintf("%s: edit %d", round, i)
		})
	}
	q.WriteString(") {")
	for i := range n {
		fmt.Fprintf(&q, "\n  u%d: updateProviderApplication(id: $id, input: $i%d) { userErrors { field code } }", i, i)
	}
	q.WriteString("\n}")
	return q.String(), vars
}

// sendFlood sends n aliased updates in one request as c and requires that
// nothing in it failed but for the platform's write rate limit: every
// top-level error is RATE_LIMITED and no update answers a userError.
func sendFlood(t *testing.T, c *platformtest.Client, n int, id, email, round string) *platformtest.Response {
	t.Helper()
	q, vars := floodRequest(n, id, email, round)
	r := c.Do(q, vars)
	require.Equal(t, http.StatusOK, r.Status)
	for _, code := range r.Codes() {
		require.Equal(t, "RATE_LIMITED", code, "errors: %+v", r.Errors)
	}
	// A refused field is null and, the payload being non-null, nulls the
	// whole data: the fields that answered are checked.
	var data map[string]*struct{ UserErrors []userError }
	if len(r.Data) > 0 && string(r.Data) != "null" {
		r.Decode(t, &data)
	}
	for alias, p := range data {
		if p != nil {
			require.Empty(t, p.UserErrors, alias)
		}
	}
	return r
}

// floodScene is an application awaiting review and the admins told of it.
type floodScene struct {
	admins    []*platformtest.Client
	applicant *platformtest.Client
	email     string
	appID     string
}

// newFloodScene signs two admins in and submits an application.
func newFloodScene(t *testing.T, s *platformtest.Server) *floodScene {
	t.Helper()
	ctx := context.Background()
	sc := &floodScene{admins: make([]*platformtest.Client, 2), applicant: s.NewAPIClient(t, ""), email: platformtest.UniqueEmail("grace")}
	for i := range sc.admins {
		email := platformtest.UniqueEmail("admin")
		_, err := s.Platform.Auth.CreateUser(ctx, auth.SignUpInput{Email: email, Password: "admin password 1", Name: "Admin"}, models.RoleAdmin)
		require.NoError(t, err)
		sc.admins[i] = s.NewAPIClient(t, "")
		var li struct{ LogIn struct{ Token *string } }
		sc.admins[i].MustDo(&li, `mutation($e: String!) { logIn(input: {email: $e, password: "admin password 1"}) { token } }`, map[string]any{"e": email})
		sc.admins[i].Token = *li.LogIn.Token
	}
	sc.applicant.SignUp(sc.email, "correct horse battery", "Grace")
	var sub struct {
		SubmitProviderApplication struct {
			Application *struct{ ID string }
			UserErrors  []userError
		}
	}
	sc.applicant.MustDo(&sub, submitApplication, map[string]any{"input": validApplication(sc.email)})
	require.Empty(t, sub.SubmitProviderApplication.UserErrors)
	sc.appID = sub.SubmitProviderApplication.Application.ID
	return sc
}

// reviewNotices are an admin's notifications about one application.
type reviewNotices struct {
	total, unread int
	bodies        []string
}

func noticesAbout(t *testing.T, admin *platformtest.Client, appID string) reviewNotices {
	t.Helper()
	var out struct {
		Notifications struct {
			Edges []struct {
				Node struct {
					Kind   string
					Body   string
					ReadAt *string
					Params []struct{ Key, Value string }
				}
			}
		}
	}
	admin.MustDo(&out, `{ notifications(first: 100) { edges { node { kind body readAt params { key value } } } } }`, nil)
	var got reviewNotices
	for _, e := range out.Notifications.Edges {
		for _, p := range e.Node.Params {
			if p.Key == "applicationId" && p.Value == appID {
				got.total++
				if e.Node.ReadAt == nil {
					got.unread++
				}
				got.bodies = append(got.bodies, e.Node.Body)
			}
		}
	}
	return got
}

// myApplication is the applicant's application: its status, history and
// maintenance notes.
func myApplication(t *testing.T, c *platformtest.Client) (status string, history []string, notes string) {
	t.Helper()
	var out struct {
		MyApplication struct {
			Status           string
			MaintenanceNotes string
			History          []struct{ Action string }
		}
	}
	c.MustDo(&out, `{ myApplication { status maintenanceNotes history { action } } }`, nil)
	for _, h := range out.MyApplication.History {
		history = append(history, h.Action)
	}
	return out.MyApplication.Status, history, out.MyApplication.MaintenanceNotes
}

func TestIssue9Point5HundredAliasedUpdatesInOneRequestStayBounded(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		sc := newFloodScene(t, s)

		sendFlood(t, sc.applicant, floodSize, sc.appID, sc.email, "flood")

		for i, admin := range sc.admins {
			got := noticesAbout(t, admin, sc.appID)
			require.Equal(t, 1, got.total, "admin %d: the submission's notice only", i)
			require.Equal(t, 1, got.unread, "admin %d", i)
		}
		status, history, _ := myApplication(t, sc.applicant)
		require.Equal(t, "SUBMITTED", status)
		require.Contains(t, [][]string{{"SUBMITTED"}, {"SUBMITTED", "RESUBMITTED"}}, history, "at most one step for the edits")
	})
}

func TestIssue9Point5AFloodWithinTheWriteLimitTellsEachAdminOnceAndIsOneHistoryStep(t *testing.T) {
	t.Parallel()
	// Each flood stays well within the applicant's write limit, so every
	// update in it runs: the onboarding rules, not the limit, bound what
	// the admins get.
	n := auth.DefaultLimits.Writes / 3
	require.Greater(t, n, 1)
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		sc := newFloodScene(t, s)
		reader, idle := sc.admins[0], sc.admins[1]

		t.Run("edits awaiting review tell no admin and are one history step", func(t *testing.T) {
			r := sendFlood(t, sc.applicant, n, sc.appID, sc.email, "first")
			require.Empty(t, r.Errors)
			for i, admin := range sc.admins {
				got := noticesAbout(t, admin, sc.appID)
				require.Equal(t, 1, got.total, "admin %d: the submission's notice only", i)
				require.Equal(t, 1, got.unread, "admin %d", i)
			}
			status, history, notes := myApplication(t, sc.applicant)
			require.Equal(t, "SUBMITTED", status)
			require.Equal(t, []string{"SUBMITTED", "RESUBMITTED"}, history)
			require.Equal(t, fmt.Sprintf("first: edit %d", n-1), notes, "every edit is stored")
		})

		t.Run("a resubmission at the head of a flood tells each admin once", func(t *testing.T) {
			reader.MustDo(nil, `mutation { markNotificationsRead { unreadCount } }`, nil)
			var ri struct {
				RequestApplicationInfo struct{ UserErrors []userError }
			}
			reader.MustDo(&ri, `mutation($id: ID!) { requestApplicationInfo(id: $id, message: "Which UPS?") { userErrors { field code } } }`, map[string]any{"id": sc.appID})
			require.Empty(t, ri.RequestApplicationInfo.UserErrors)

			r := sendFlood(t, sc.applicant, n, sc.appID, sc.email, "second")
			require.Empty(t, r.Errors)

			status, history, _ := myApplication(t, sc.applicant)
			require.Equal(t, "SUBMITTED", status)
			require.Equal(t, []string{"SUBMITTED", "RESUBMITTED", "INFO_REQUESTED", "RESUBMITTED"}, history)
			got := noticesAbout(t, reader, sc.appID)
			require.Equal(t, 2, got.total, "the admin who read the first notice gets one new one")
			require.Equal(t, 1, got.unread)
			require.Contains(t, got.bodies[0], "resubmitted", "newest first")
			got = noticesAbout(t, idle, sc.appID)
			require.Equal(t, 1, got.total, "the admin who did not read it has it renewed, not joined by another")
			require.Equal(t, 1, got.unread)
			require.Contains(t, got.bodies[0], "resubmitted")
		})
	})
}
