package platform_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

const applicationFields = `id status fullName email company upsProtected commitmentMonths
  suggestedTier { tier reasons reasonCodes } tier
  gpus { model { key name } otherModel quantity ramGb uploadGbps downloadGbps
         availability { kind timeZone windows { day start end } } location { city country region } }
  history { action actor { name isAdmin } message tier }`

const submitApplication = `mutation($input: ProviderApplicationInput!) {
  submitProviderApplication(input: $input) { application { ` + applicationFields + ` } userErrors { field code message } }
}`

type application struct {
	ID            string
	Status        string
	SuggestedTier struct {
		Tier        string
		Reasons     []string
		ReasonCodes []string
	}
	Tier *string
	Gpus []struct {
		Model        *struct{ Key string }
		OtherModel   *string
		Quantity     int
		Availability struct {
			Kind     string
			TimeZone *string
			Windows  []struct{ Day, Start, End string }
		}
	}
	History []struct {
		Action string
		Actor  struct {
			Name    string
			IsAdmin bool
		}
		Message *string
		Tier    *string
	}
}

type userError struct{ Field, Code, Message string }

func validApplication(email string) map[string]any {
	return map[string]any{
		"fullName": "Grace Hopper", "email": email, "company": nil,
		"upsProtected": false, "commitmentMonths": 6, "maintenanceNotes": "Patch Tuesdays 02:00-04:00",
		"gpus": []any{
			map[string]any{
				"modelKey": "H100_SXM_80GB", "quantity": 8, "ramGb": 1024, "uploadGbps": 10, "downloadGbps": 10,
				"availability": map[string]any{"kind": "ALWAYS"},
				"location":     map[string]any{"city": "Lisbon", "country": "Portugal"},
			},
			map[string]any{
				"modelKey": "OTHER", "otherModel": "RTX 6000 Ada", "quantity": 2, "ramGb": 128, "uploadGbps": 1, "downloadGbps": 1,
				"availability": map[string]any{"kind": "WEEKLY", "timeZone": "Europe/Lisbon", "windows": []any{
					map[string]any{"day": "MONDAY", "start": "18:00", "end": "24:00"},
					map[string]any{"day": "SATURDAY", "start": "00:00", "end": "12:00"},
				}},
				"location": map[string]any{"region": "eu-west"},
			},
		},
	}
}

// mutate returns a copy of the valid application changed by f.
func mutate(email string, f func(m map[string]any)) map[string]any {
	m := validApplication(email)
	f(m)
	return m
}

func gpu(m map[string]any, i int) map[string]any { return m["gpus"].([]any)[i].(map[string]any) }

func countRows(t *testing.T, s *platformtest.Server, table string) int {
	t.Helper()
	n, err := s.Platform.DB.NewSelect().Table(table).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

func TestApplicationValidationNamesTheFieldAndStoresNothing(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		c := s.NewAPIClient(t, "")
		email := platformtest.UniqueEmail("val")
		c.SignUp(email, "correct horse battery", "Val")
		cases := []struct {
			desc  string
			input map[string]any
			field string
			code  string
		}{
			{"missing email", mutate(email, func(m map[string]any) { m["email"] = "" }), "input.email", "REQUIRED"},
			{"malformed email", mutate(email, func(m map[string]any) { m["email"] = "grace@" }), "input.email", "INVALID"},
			{"no GPU entries", mutate(email, func(m map[string]any) { m["gpus"] = []any{} }), "input.gpus", "REQUIRED"},
			{"quantity zero", mutate(email, func(m map[string]any) { gpu(m, 0)["quantity"] = 0 }), "input.gpus.0.quantity", "OUT_OF_RANGE"},
			{"quantity over 10,000", mutate(email, func(m map[string]any) { gpu(m, 0)["quantity"] = 10001 }), "input.gpus.0.quantity", "OUT_OF_RANGE"},
			{"non-positive RAM", mutate(email, func(m map[string]any) { gpu(m, 0)["ramGb"] = 0 }), "input.gpus.0.ramGb", "OUT_OF_RANGE"},
			{"non-positive upload", mutate(email, func(m map[string]any) { gpu(m, 1)["uploadGbps"] = -1 }), "input.gpus.1.uploadGbps", "OUT_OF_RANGE"},
			{"unknown model", mutate(email, func(m map[string]any) { gpu(m, 0)["modelKey"] = "GTX_480" }), "input.gpus.0.modelKey", "UNKNOWN_MODEL"},
			{"other without a name", mutate(email, func(m map[string]any) { gpu(m, 1)["otherModel"] = "  " }), "input.gpus.1.otherModel", "REQUIRED"},
			{"unknown time zone", mutate(email, func(m map[string]any) {
				gpu(m, 1)["availability"].(map[string]any)["timeZone"] = "Mars/Olympus_Mons"
			}), "input.gpus.1.availability.timeZone", "UNKNOWN_TIME_ZONE"},
			{"empty window", mutate(email, func(m map[string]any) {
				gpu(m, 1)["availability"].(map[string]any)["windows"] = []any{map[string]any{"day": "MONDAY", "start": "10:00", "end": "10:00"}}
			}), "input.gpus.1.availability.windows.0.end", "EMPTY_WINDOW"},
			{"overlapping windows", mutate(email, func(m map[string]any) {
				gpu(m, 1)["availability"].(map[string]any)["windows"] = []any{
					map[string]any{"day": "MONDAY", "start": "10:00", "end": "14:00"},
					map[string]any{"day": "MONDAY", "start": "13:00", "end": "15:00"},
				}
			}), "input.gpus.1.availability.windows.1", "OVERLAP"},
			{"weekly without windows", mutate(email, func(m map[string]any) {
				gpu(m, 1)["availability"].(map[string]any)["windows"] = []any{}
			}), "input.gpus.1.availability.windows", "REQUIRED"},
			{"notes over the limit", mutate(email, func(m map[string]any) { m["maintenanceNotes"] = strings.Repeat("n", 2001) }), "input.maintenanceNotes", "TOO_LONG"},
			{"commitment of 5 months", mutate(email, func(m map[string]any) { m["commitmentMonths"] = 5 }), "input.commitmentMonths", "INVALID"},
			{"no location", mutate(email, func(m map[string]any) { gpu(m, 0)["location"] = map[string]any{} }), "input.gpus.0.location", "REQUIRED"},
		}
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				var out struct {
					SubmitProviderApplication struct {
						Application *application
						UserErrors  []userError
					}
				}
				c.MustDo(&out, submitApplication, map[string]any{"input": tc.input})
				require.Nil(t, out.SubmitProviderApplication.Application)
				var fields []string
				for _, e := range out.SubmitProviderApplication.UserErrors {
					fields = append(fields, e.Field+":"+e.Code)
				}
				require.Contains(t, fields, tc.field+":"+tc.code)
			})
		}
		require.Zero(t, countRows(t, s, "provider_applications"), "nothing stored")
		require.Zero(t, countRows(t, s, "application_gpus"))
	})
}

func TestOnboardingFromApplicationToAgentToken(t *testing.T) {
	t.Parallel()
	for _, stack := range platformtest.Stacks {
		t.Run(stack.Name, func(t *testing.T) {
			t.Parallel()
			smtp := platformtest.StartSMTP(t)
			s := platformtest.Start(t, stack, platformtest.Options{SMTPURL: smtp.URL(), PublicURL: "https://gpunex.example"})
			ctx := context.Background()
			adminEmail := platformtest.UniqueEmail("admin")
			_, err := s.Platform.Auth.CreateUser(ctx, auth.SignUpInput{Email: adminEmail, Password: "admin password 1", Name: "Ada"}, models.RoleAdmin)
			require.NoError(t, err)
			admin := s.NewAPIClient(t, "")
			var li struct{ LogIn struct{ Token *string } }
			admin.MustDo(&li, `mutation($e: String!) { logIn(input: {email: $e, password: "admin password 1"}) { token } }`, map[string]any{"e": adminEmail})
			admin.Token = *li.LogIn.Token

			applicant := s.NewAPIClient(t, "")
			email := platformtest.UniqueEmail("grace")
			applicant.SignUp(email, "correct horse battery", "Grace")

			// Apply with two GPU entries.
			var sub struct {
				SubmitProviderApplication struct {
					Application *application
					UserErrors  []userError
				}
			}
			applicant.MustDo(&sub, submitApplication, map[string]any{"input": validApplication(email)})
			require.Empty(t, sub.SubmitProviderApplication.UserErrors)
			app := sub.SubmitProviderApplication.Application
			require.Equal(t, "SUBMITTED", app.Status)
			require.Len(t, app.Gpus, 2)
			require.Equal(t, "H100_SXM_80GB", app.Gpus[0].Model.Key)
			require.Equal(t, "RTX 6000 Ada", *app.Gpus[1].OtherModel)
			require.Equal(t, "Europe/Lisbon", *app.Gpus[1].Availability.TimeZone)
			require.Len(t, app.Gpus[1].Availability.Windows, 2)
			require.Equal(t, "COMMUNITY", app.SuggestedTier.Tier)
			require.Contains(t, app.SuggestedTier.Reasons, "no UPS protection (mandatory for Enterprise)")
			require.Contains(t, app.SuggestedTier.ReasonCodes, "NO_UPS")
			require.Len(t, app.SuggestedTier.ReasonCodes, len(app.SuggestedTier.Reasons))

			t.Run("a second open application is refused", func(t *testing.T) {
				var again struct {
					SubmitProviderApplication struct{ UserErrors []userError }
				}
				applicant.MustDo(&again, submitApplication, map[string]any{"input": validApplication(email)})
				require.Equal(t, "ALREADY_OPEN", again.SubmitProviderApplication.UserErrors[0].Code)
				require.Equal(t, 1, countRows(t, s, "provider_applications"))
			})

			t.Run("only admins review", func(t *testing.T) {
				r := applicant.Do(`{ providerApplications { totalCount } }`, nil)
				require.Equal(t, []string{"FORBIDDEN"}, r.Codes())
				r = applicant.Do(`{ providerApplicationCounts { status count } }`, nil)
				require.Equal(t, []string{"FORBIDDEN"}, r.Codes(), "the queue's counts are the admins' too")
				r = applicant.Do(`mutation($id: ID!) { approveProviderApplication(id: $id) { provider { id } } }`, map[string]any{"id": app.ID})
				require.Equal(t, []string{"FORBIDDEN"}, r.Codes())
				r = s.NewAPIClient(t, "").Do(`mutation($id: ID!) { rejectProviderApplication(id: $id, reason: "x") { userErrors { code } } }`, map[string]any{"id": app.ID})
				require.Equal(t, []string{"UNAUTHENTICATED"}, r.Codes())
				require.Zero(t, countRows(t, s, "providers"))
			})

			t.Run("admin sees the queue", func(t *testing.T) {
				var q struct {
					ProviderApplications struct {
						TotalCount int
						Edges      []struct{ Node struct{ ID, Status string } }
					}
				}
				admin.MustDo(&q, `{ providerApplications(status: SUBMITTED) { totalCount edges { node { id status } } } }`, nil)
				require.Equal(t, 1, q.ProviderApplications.TotalCount)
				require.Equal(t, app.ID, q.ProviderApplications.Edges[0].Node.ID)
			})

			t.Run("admin asks for more information; the applicant is told and resubmits", func(t *testing.T) {
				var out struct {
					RequestApplicationInfo struct {
						Application *application
						UserErrors  []userError
					}
				}
				admin.MustDo(&out, `mutation($id: ID!, $m: String!) { requestApplicationInfo(id: $id, message: $m) { application { status } userErrors { field code } } }`,
					map[string]any{"id": app.ID, "m": "  "})
				require.Equal(t, "message", out.RequestApplicationInfo.UserErrors[0].Field)
				admin.MustDo(&out, `mutation($id: ID!, $m: String!) { requestApplicationInfo(id: $id, message: $m) { application { status } userErrors { field code } } }`,
					map[string]any{"id": app.ID, "m": "Which UPS do you run?"})
				require.Equal(t, "INFO_REQUESTED", out.RequestApplicationInfo.Application.Status)

				var n struct {
					Notifications struct {
						Edges []struct{ Node struct{ Kind, Body string } }
					}
				}
				applicant.MustDo(&n, `{ notifications(first: 5) { edges { node { kind body } } } }`, nil)
				require.Equal(t, "APPLICATION_INFO_REQUESTED", n.Notifications.Edges[0].Node.Kind)
				mail := smtp.WaitFor(t, email, "more information")
				require.Contains(t, mail.Body, "Which UPS do you run?")
				require.Contains(t, mail.Body, "https://gpunex.example/provider/application")

				edited := mutate(email, func(m map[string]any) { m["upsProtected"] = true; m["maintenanceNotes"] = "APC Smart-UPS, 20 minutes" })
				var upd struct {
					UpdateProviderApplication struct {
						Application *application
						UserErrors  []userError
					}
				}
				applicant.MustDo(&upd, `mutation($id: ID!, $input: ProviderApplicationInput!) { updateProviderApplication(id: $id, input: $input) { application { `+applicationFields+` } userErrors { field code } } }`,
					map[string]any{"id": app.ID, "input": edited})
				require.Empty(t, upd.UpdateProviderApplication.UserErrors)
				got := upd.UpdateProviderApplication.Application
				require.Equal(t, "SUBMITTED", got.Status)
				var actions []string
				for _, h := range got.History {
					actions = append(actions, h.Action)
				}
				require.Equal(t, []string{"SUBMITTED", "INFO_REQUESTED", "RESUBMITTED"}, actions)
				require.True(t, got.History[1].Actor.IsAdmin)
				require.Equal(t, "Which UPS do you run?", *got.History[1].Message)
			})

			t.Run("only admins read what a resubmission changed", func(t *testing.T) {
				type fieldChange struct {
					Field         string
					Before, After *string
				}
				var q struct {
					ProviderApplication struct {
						History []struct {
							Action  string
							Changes *[]fieldChange
						}
					}
				}
				const read = `query($id: ID!) { providerApplication(id: $id) { history { action changes { field before after } } } }`
				applicant.MustDo(&q, read, map[string]any{"id": app.ID})
				require.Len(t, q.ProviderApplication.History, 3)
				for _, h := range q.ProviderApplication.History {
					require.Nil(t, h.Changes, "the applicant reads no changes on their own %s step", h.Action)
				}

				admin.MustDo(&q, read, map[string]any{"id": app.ID})
				resubmitted := q.ProviderApplication.History[2]
				require.Equal(t, "RESUBMITTED", resubmitted.Action)
				require.NotNil(t, resubmitted.Changes, "the admin reads the list")
				fields := map[string]fieldChange{}
				for _, c := range *resubmitted.Changes {
					fields[c.Field] = c
				}
				require.Contains(t, fields, "upsProtected")
				require.Equal(t, "false", *fields["upsProtected"].Before)
				require.Equal(t, "true", *fields["upsProtected"].After)
				require.Equal(t, "APC Smart-UPS, 20 minutes", *fields["maintenanceNotes"].After)
				require.Nil(t, q.ProviderApplication.History[0].Changes, "a submission changes nothing")
			})

			t.Run("a reply is refused when no question awaits one", func(t *testing.T) {
				edited := mutate(email, func(m map[string]any) { m["upsProtected"] = true; m["maintenanceNotes"] = "two of them" })
				var upd struct {
					UpdateProviderApplication struct {
						Application *application
						UserErrors  []userError
					}
				}
				applicant.MustDo(&upd, `mutation($id: ID!, $input: ProviderApplicationInput!, $reply: String) { updateProviderApplication(id: $id, input: $input, reply: $reply) { application { status } userErrors { field code } } }`,
					map[string]any{"id": app.ID, "input": edited, "reply": "Nobody asked, but here it is."})
				require.Nil(t, upd.UpdateProviderApplication.Application)
				require.Len(t, upd.UpdateProviderApplication.UserErrors, 1)
				require.Equal(t, "reply", upd.UpdateProviderApplication.UserErrors[0].Field)
				require.Equal(t, "INVALID", upd.UpdateProviderApplication.UserErrors[0].Code)
				var q struct {
					ProviderApplication struct {
						MaintenanceNotes string
						History          []struct{ Message *string }
					}
				}
				admin.MustDo(&q, `query($id: ID!) { providerApplication(id: $id) { maintenanceNotes history { message } } }`, map[string]any{"id": app.ID})
				require.Len(t, q.ProviderApplication.History, 3, "nothing recorded")
				require.Nil(t, q.ProviderApplication.History[2].Message)
				require.Equal(t, "APC Smart-UPS, 20 minutes", q.ProviderApplication.MaintenanceNotes, "nothing changed")
			})

			t.Run("another user cannot edit or read the application", func(t *testing.T) {
				other := s.NewAPIClient(t, "")
				other.SignUp(platformtest.UniqueEmail("mallory"), "correct horse battery", "Mallory")
				r := other.Do(`mutation($id: ID!, $input: ProviderApplicationInput!) { updateProviderApplication(id: $id, input: $input) { userErrors { code } } }`,
					map[string]any{"id": app.ID, "input": validApplication("m@example.com")})
				require.Equal(t, []string{"NOT_FOUND"}, r.Codes(), "another user's application is answered as an unknown one")
				theirs := r.Errors[0].Message
				r = other.Do(`mutation($id: ID!, $input: ProviderApplicationInput!) { updateProviderApplication(id: $id, input: $input) { userErrors { code } } }`,
					map[string]any{"id": "999999", "input": validApplication("m@example.com")})
				require.Equal(t, []string{"NOT_FOUND"}, r.Codes())
				require.Equal(t, theirs, r.Errors[0].Message, "the same answer as an id that does not exist")
				var q struct{ ProviderApplication *application }
				r = other.Do(`query($id: ID!) { providerApplication(id: $id) { id } }`, map[string]any{"id": app.ID})
				require.Equal(t, []string{"NOT_FOUND"}, r.Codes())
				_ = q
			})

			var providerID string
			t.Run("Enterprise without UPS is refused; approval as Community is idempotent", func(t *testing.T) {
				// The edit declared UPS; a second application without UPS is used for the refusal.
				type approval struct {
					ApproveProviderApplication struct {
						Application *struct {
							Status string
							Tier   *string
						}
						Provider   *struct{ ID, Tier string }
						UserErrors []userError
					}
				}
				q := `mutation($id: ID!, $tier: ProviderTier) { approveProviderApplication(id: $id, tier: $tier, message: "Welcome") { application { status tier } provider { id tier } userErrors { field code } } }`
				var a1 approval
				admin.MustDo(&a1, q, map[string]any{"id": app.ID, "tier": "COMMUNITY"})
				require.Empty(t, a1.ApproveProviderApplication.UserErrors)
				require.Equal(t, "APPROVED", a1.ApproveProviderApplication.Application.Status)
				require.Equal(t, "COMMUNITY", a1.ApproveProviderApplication.Provider.Tier)
				providerID = a1.ApproveProviderApplication.Provider.ID
				var a2 approval
				admin.MustDo(&a2, q, map[string]any{"id": app.ID, "tier": "COMMUNITY"})
				require.Equal(t, providerID, a2.ApproveProviderApplication.Provider.ID)
				require.Equal(t, 1, countRows(t, s, "providers"), "approving twice creates one provider")

				mail := smtp.WaitFor(t, email, "approved")
				require.Contains(t, mail.Body, "curl -fsSL https://gpunex.example/agent/install.sh | sudo sh")
				require.Contains(t, mail.Body, "The installer asks for your agent token")
				require.Contains(t, mail.Body, "sudo sh -s -- --token-file /root/gpunex-token")
				require.NotContains(t, mail.Body, "GPUNEX_TOKEN=", "issue 9 point 8: no command with the token in it")
				require.Contains(t, mail.Body, "/provider/tokens")
				require.Contains(t, mail.Body, "Community")
				n := 0
				for _, m := range smtp.Messages() {
					if strings.Contains(m.Subject, "approved") {
						n++
					}
				}
				require.Equal(t, 1, n, "one approval email")

				noUPS := s.NewAPIClient(t, "")
				e2 := platformtest.UniqueEmail("noups")
				noUPS.SignUp(e2, "correct horse battery", "Nora")
				var sub2 struct {
					SubmitProviderApplication struct{ Application *application }
				}
				noUPS.MustDo(&sub2, submitApplication, map[string]any{"input": validApplication(e2)})
				var a3 approval
				admin.MustDo(&a3, q, map[string]any{"id": sub2.SubmitProviderApplication.Application.ID, "tier": "ENTERPRISE"})
				require.Equal(t, "tier", a3.ApproveProviderApplication.UserErrors[0].Field)
				require.Equal(t, "UPS_REQUIRED", a3.ApproveProviderApplication.UserErrors[0].Code)
				require.Equal(t, 1, countRows(t, s, "providers"))

				var rej struct {
					RejectProviderApplication struct {
						Application *struct{ Status string }
						UserErrors  []userError
					}
				}
				rq := `mutation($id: ID!, $r: String!) { rejectProviderApplication(id: $id, reason: $r) { application { status } userErrors { field code } } }`
				admin.MustDo(&rej, rq, map[string]any{"id": sub2.SubmitProviderApplication.Application.ID, "r": ""})
				require.Equal(t, "reason", rej.RejectProviderApplication.UserErrors[0].Field)
				admin.MustDo(&rej, rq, map[string]any{"id": sub2.SubmitProviderApplication.Application.ID, "r": "No UPS"})
				require.Equal(t, "REJECTED", rej.RejectProviderApplication.Application.Status)
				admin.MustDo(&a3, q, map[string]any{"id": sub2.SubmitProviderApplication.Application.ID})
				require.Equal(t, "INVALID_STATE", a3.ApproveProviderApplication.UserErrors[0].Code)
				smtp.WaitFor(t, e2, "provider application")
			})

			t.Run("the provider creates, uses and revokes an agent token", func(t *testing.T) {
				var me struct{ Me struct{ Roles []string } }
				applicant.MustDo(&me, `{ me { roles } }`, nil)
				require.Contains(t, me.Me.Roles, "PROVIDER")

				var ct struct {
					CreateAgentToken struct {
						Token          *string
						InstallCommand *string
						AgentToken     *struct{ ID, Name, Prefix string }
						UserErrors     []userError
					}
				}
				q := `mutation($n: String!) { createAgentToken(name: $n) { token installCommand agentToken { id name prefix } userErrors { field code } } }`
				applicant.MustDo(&ct, q, map[string]any{"n": ""})
				require.Equal(t, "name", ct.CreateAgentToken.UserErrors[0].Field)
				applicant.MustDo(&ct, q, map[string]any{"n": "rack-1"})
				secret := *ct.CreateAgentToken.Token
				require.True(t, strings.HasPrefix(secret, "gpx_a_"))
				require.Len(t, secret, len("gpx_a_")+43, "256 bits of entropy")
				require.True(t, strings.HasPrefix(secret, ct.CreateAgentToken.AgentToken.Prefix))
				require.True(t, strings.HasSuffix(*ct.CreateAgentToken.InstallCommand, "/agent/install.sh | sudo sh"), *ct.CreateAgentToken.InstallCommand)
				require.NotContains(t, *ct.CreateAgentToken.InstallCommand, secret, "issue 9 point 8: the token is never in the install command")

				var stored string
				require.NoError(t, s.Platform.DB.NewSelect().Table("agent_tokens").Column("token_hash").Limit(1).Scan(context.Background(), &stored))
				require.NotContains(t, stored, secret)
				require.Equal(t, auth.HashToken(secret), stored, "only the hash is stored")

				agent := s.NewAPIClient(t, secret)
				r := agent.Do(`{ health }`, nil)
				require.Equal(t, http.StatusOK, r.Status)

				var mp struct {
					MyProvider struct {
						ID, Tier    string
						AgentTokens []struct {
							Name       string
							LastUsedAt *string
							RevokedAt  *string
						}
					}
				}
				applicant.MustDo(&mp, `{ myProvider { id tier agentTokens { name lastUsedAt revokedAt } } }`, nil)
				require.Equal(t, providerID, mp.MyProvider.ID)
				require.Equal(t, "rack-1", mp.MyProvider.AgentTokens[0].Name)
				require.NotNil(t, mp.MyProvider.AgentTokens[0].LastUsedAt, "last use is recorded")

				// Nobody else can revoke it.
				r = admin.Do(`mutation($id: ID!) { revokeAgentToken(id: $id) { agentToken { id } } }`, map[string]any{"id": ct.CreateAgentToken.AgentToken.ID})
				require.Equal(t, []string{"FORBIDDEN"}, r.Codes(), "the admin is not this provider")

				var rv struct {
					RevokeAgentToken struct{ AgentToken struct{ RevokedAt *string } }
				}
				applicant.MustDo(&rv, `mutation($id: ID!) { revokeAgentToken(id: $id) { agentToken { revokedAt } } }`, map[string]any{"id": ct.CreateAgentToken.AgentToken.ID})
				require.NotNil(t, rv.RevokeAgentToken.AgentToken.RevokedAt)
				r = agent.Do(`{ health }`, nil)
				require.Equal(t, http.StatusUnauthorized, r.Status, "a revoked token stops working at once")
				require.Equal(t, []string{"UNAUTHENTICATED"}, r.Codes())
			})
		})
	}
}

func TestSupportedGpuModelsIsPublic(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{})
	var out struct {
		SupportedGpuModels []struct {
			Key, Family, Source string
			Fp16TensorTflops    float64
			NvmlNames           []string
		}
	}
	s.NewAPIClient(t, "").MustDo(&out, `{ supportedGpuModels { key family source fp16TensorTflops nvmlNames } }`, nil)
	require.GreaterOrEqual(t, len(out.SupportedGpuModels), 7)
	for _, m := range out.SupportedGpuModels {
		require.NotEmpty(t, m.Source)
		require.NotEmpty(t, m.NvmlNames)
	}
}

const applicationChanged = `subscription($id: ID) { providerApplicationChanged(id: $id) {
  initial application { id status maintenanceNotes upsProtected tier history { action actor { name isAdmin } message tier } } } }`

// applicationChange is one providerApplicationChanged message.
type applicationChange struct {
	Initial     bool
	Application struct {
		ID               string
		Status           string
		MaintenanceNotes *string
		UpsProtected     bool
		Tier             *string
		History          []struct {
			Action string
			Actor  struct {
				Name    string
				IsAdmin bool
			}
			Message *string
			Tier    *string
		}
	}
}

// actions lists the application's history, oldest first.
func (c applicationChange) actions() []string {
	out := make([]string, 0, len(c.Application.History))
	for _, h := range c.Application.History {
		out = append(out, h.Action)
	}
	return out
}

// watchApplications opens providerApplicationChanged (of one application
// when id is set) on a WebSocket of its own, signed in with token.
func watchApplications(t *testing.T, s *platformtest.Server, token string, id *string) *platformtest.WS {
	t.Helper()
	ws, _, err := s.DialWS(t, nil)
	require.NoError(t, err)
	init := map[string]any{}
	if token != "" {
		init["authorization"] = "Bearer " + token
	}
	ws.Init(init)
	vars := map[string]any{}
	if id != nil {
		vars["id"] = *id
	}
	ws.Subscribe("apps", applicationChanged, vars)
	return ws
}

// nextChange reads the next message of a watch and requires it is about
// application id.
func nextChange(t *testing.T, ws *platformtest.WS, id string) applicationChange {
	t.Helper()
	m := ws.MustRead(10 * time.Second)
	require.Equal(t, "next", m.Type, "%s", m.Payload)
	var p struct {
		Data struct {
			ProviderApplicationChanged applicationChange
		}
		Errors []any
	}
	require.NoError(t, json.Unmarshal(m.Payload, &p))
	require.Empty(t, p.Errors)
	c := p.Data.ProviderApplicationChanged
	require.Equal(t, id, c.Application.ID, "the next change is about application %s: %s", id, m.Payload)
	return c
}

// refusedWatch requires the watch is refused with code and then ends.
// gqlgen reports a resolver's refusal as a result with errors and no data.
func refusedWatch(t *testing.T, ws *platformtest.WS, code string) {
	t.Helper()
	m := ws.MustRead(5 * time.Second)
	require.Equal(t, "next", m.Type, "%s", m.Payload)
	var p struct {
		Data   map[string]any
		Errors []struct{ Extensions map[string]any }
	}
	require.NoError(t, json.Unmarshal(m.Payload, &p))
	require.Nil(t, p.Data["providerApplicationChanged"], "%s", m.Payload)
	require.Len(t, p.Errors, 1, "%s", m.Payload)
	require.Equal(t, code, p.Errors[0].Extensions["code"], "%s", m.Payload)
	require.Equal(t, "complete", ws.MustRead(5*time.Second).Type)
}

// adminClient creates an admin named name and signs it in as an API client.
func adminClient(t *testing.T, s *platformtest.Server, name string) *platformtest.Client {
	t.Helper()
	email := platformtest.UniqueEmail(strings.ToLower(name))
	_, err := s.Platform.Auth.CreateUser(context.Background(), auth.SignUpInput{Email: email, Password: "admin password 1", Name: name}, models.RoleAdmin)
	require.NoError(t, err)
	c := s.NewAPIClient(t, "")
	var li struct{ LogIn struct{ Token *string } }
	c.MustDo(&li, `mutation($e: String!) { logIn(input: {email: $e, password: "admin password 1"}) { token } }`, map[string]any{"e": email})
	c.Token = *li.LogIn.Token
	return c
}

// applyAs signs up a new applicant and submits the valid application.
func applyAs(t *testing.T, s *platformtest.Server, name string) (*platformtest.Client, string) {
	t.Helper()
	c := s.NewAPIClient(t, "")
	email := platformtest.UniqueEmail(strings.ToLower(name))
	c.SignUp(email, "correct horse battery", name)
	var sub struct {
		SubmitProviderApplication struct {
			Application *application
			UserErrors  []userError
		}
	}
	c.MustDo(&sub, submitApplication, map[string]any{"input": validApplication(email)})
	require.Empty(t, sub.SubmitProviderApplication.UserErrors)
	return c, sub.SubmitProviderApplication.Application.ID
}

func TestAdminWatchSeesNewApplicationsResubmissionsAndDecisionsLive(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		ada := adminClient(t, s, "Ada")
		bea := adminClient(t, s, "Bea")
		decide := func(c *platformtest.Client, query, id string, vars map[string]any) {
			t.Helper()
			if vars == nil {
				vars = map[string]any{}
			}
			vars["id"] = id
			var out map[string]struct{ UserErrors []userError }
			c.MustDo(&out, query, vars)
			for name, payload := range out {
				require.Empty(t, payload.UserErrors, name)
			}
		}
		const (
			requestInfo = `mutation($id: ID!, $m: String!) { requestApplicationInfo(id: $id, message: $m) { userErrors { field code } } }`
			approve     = `mutation($id: ID!) { approveProviderApplication(id: $id, tier: COMMUNITY, message: "Welcome") { userErrors { field code } } }`
			reject      = `mutation($id: ID!) { rejectProviderApplication(id: $id, reason: "No GPUs in the photos") { userErrors { field code } } }`
		)

		// A decided application and an open one exist before anyone watches.
		_, decidedID := applyAs(t, s, "Carl")
		decide(ada, reject, decidedID, nil)
		grace, appID := applyAs(t, s, "Grace")

		// The queue's watch starts with what awaits a decision, and only
		// that: the next message is already a live one.
		all := watchApplications(t, s, ada.Token, nil)
		c := nextChange(t, all, appID)
		require.True(t, c.Initial)
		require.Equal(t, "SUBMITTED", c.Application.Status)
		// The review page's watch starts with the application as it is.
		one := watchApplications(t, s, ada.Token, &appID)
		c = nextChange(t, one, appID)
		require.True(t, c.Initial)
		require.Equal(t, []string{"SUBMITTED"}, c.actions())

		// A new application appears in the queue's watch, not in the
		// review page's (its next message is about its own application).
		_, otherID := applyAs(t, s, "Hedy")
		c = nextChange(t, all, otherID)
		require.False(t, c.Initial)
		require.Equal(t, "SUBMITTED", c.Application.Status)

		// Ada asks for more information: both watches see it.
		decide(ada, requestInfo, appID, map[string]any{"m": "Which UPS do you run?"})
		for _, ws := range []*platformtest.WS{all, one} {
			c = nextChange(t, ws, appID)
			require.False(t, c.Initial)
			require.Equal(t, "INFO_REQUESTED", c.Application.Status)
			require.Equal(t, []string{"SUBMITTED", "INFO_REQUESTED"}, c.actions())
			require.Equal(t, "Which UPS do you run?", *c.Application.History[1].Message)
		}

		// The applicant edits and resubmits: the new answers and the
		// history arrive.
		edited := mutate("grace@example.com", func(m map[string]any) {
			m["upsProtected"] = true
			m["maintenanceNotes"] = "APC Smart-UPS, 20 minutes"
		})
		var upd struct {
			UpdateProviderApplication struct{ UserErrors []userError }
		}
		grace.MustDo(&upd, `mutation($id: ID!, $input: ProviderApplicationInput!) { updateProviderApplication(id: $id, input: $input) { userErrors { field code } } }`,
			map[string]any{"id": appID, "input": edited})
		require.Empty(t, upd.UpdateProviderApplication.UserErrors)
		for _, ws := range []*platformtest.WS{all, one} {
			c = nextChange(t, ws, appID)
			require.Equal(t, "SUBMITTED", c.Application.Status)
			require.Equal(t, []string{"SUBMITTED", "INFO_REQUESTED", "RESUBMITTED"}, c.actions())
			require.False(t, c.Application.History[2].Actor.IsAdmin)
			require.Equal(t, "APC Smart-UPS, 20 minutes", *c.Application.MaintenanceNotes)
			require.True(t, c.Application.UpsProtected)
		}

		// Another admin decides: Ada's watches see Bea's approval.
		decide(bea, approve, appID, nil)
		for _, ws := range []*platformtest.WS{all, one} {
			c = nextChange(t, ws, appID)
			require.Equal(t, "APPROVED", c.Application.Status)
			require.Equal(t, "COMMUNITY", *c.Application.Tier)
			last := c.Application.History[len(c.Application.History)-1]
			require.Equal(t, "APPROVED", last.Action)
			require.Equal(t, "Bea", last.Actor.Name)
			require.Equal(t, "COMMUNITY", *last.Tier)
		}

		// A decision already made changes nothing and announces nothing,
		// nor does a refused one (its transaction rolls back).
		publishes := s.Bus.Publishes()
		decide(bea, approve, appID, nil)
		var refused struct {
			RequestApplicationInfo struct{ UserErrors []userError }
		}
		ada.MustDo(&refused, requestInfo, map[string]any{"id": appID, "m": "Too late"})
		require.Equal(t, "INVALID_STATE", refused.RequestApplicationInfo.UserErrors[0].Code)
		require.Equal(t, publishes, s.Bus.Publishes(), "nothing was announced")

		// Rejecting the other application reaches the queue's watch only.
		decide(bea, reject, otherID, nil)
		c = nextChange(t, all, otherID)
		require.Equal(t, "REJECTED", c.Application.Status)
	})
}

func TestOnlyAdminsWatchApplications(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		grace, appID := applyAs(t, s, "Grace")
		admin := adminClient(t, s, "Ada")
		cases := []struct {
			desc  string
			token string
			id    *string
			code  string
		}{
			{"the applicant may not watch the queue", grace.Token, nil, "FORBIDDEN"},
			{"the applicant may not watch even their own application", grace.Token, &appID, "FORBIDDEN"},
			{"anonymous connections are asked to sign in", "", nil, "UNAUTHENTICATED"},
			{"an unknown application is not found", admin.Token, new("999999"), "NOT_FOUND"},
			{"an id that is not one is bad input", admin.Token, new("grace"), "BAD_USER_INPUT"},
		}
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				refusedWatch(t, watchApplications(t, s, tc.token, tc.id), tc.code)
			})
		}
	})
}

func TestApplicationWatchesLeaveNoGoroutineBehind(t *testing.T) {
	// Not parallel: it counts the process's goroutines.
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{})
	_, appID := applyAs(t, s, "Grace")
	admin := adminClient(t, s, "Ada")
	admin.HTTP.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()

	for i := range 6 {
		var id *string
		switch i % 3 {
		case 1:
			id = &appID
		case 2:
			id = new("999999") // refused after the bus subscription is made
		}
		ws := watchApplications(t, s, admin.Token, id)
		if i%3 == 2 {
			refusedWatch(t, ws, "NOT_FOUND")
		} else {
			nextChange(t, ws, appID)
		}
		if i%2 == 0 {
			ws.Send("complete", "apps", nil)
		}
		require.NoError(t, ws.Conn.Close())
	}
	await.True(t, func() bool { return runtime.NumGoroutine() <= before+1 },
		"goroutines: before %d, now %d", before, runtime.NumGoroutine())
}
