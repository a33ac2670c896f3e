package onboarding

import (
	"fmt"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/models"
)

// The kinds of the decision emails, also their groups in the mail
// templates.
const (
	MailKindApproved      = "application.approved"
	MailKindRejected      = "application.rejected"
	MailKindInfoRequested = "application.info_requested"
)

// tokenFileExample is where the approval email suggests a host without a
// terminal keeps its agent token.
const tokenFileExample = "/root/gpunex-token"

// approvalEmail tells the applicant their application is approved, with
// the tier decided, the reviewer's note if any, and how to install the
// agent, in the language of the applicant's account (read when the email
// is enqueued, in the decision's transaction).
func (s *Service) approvalEmail(app *models.ProviderApplication, note *string) mail.Message {
	base := s.publicURL()
	install := s.deps.Providers.InstallCommand()
	msg := mail.ForUser(app.UserID, func(lang models.Language) *mail.Email {
		e := mail.Compose(lang, MailKindApproved).Subject(nil).Greeting(app.FullName)
		e.P("intro", mail.Vars{"tier": e.T("tier."+string(*app.Tier), nil)})
		if note != nil {
			e.P("note", nil).Quote(*note)
		}
		e.P("nextSteps", nil).
			P("step1", mail.Vars{"link": mail.Link(base + "/provider/tokens"), "prefix": auth.AgentTokenPrefix}).
			P("step2", nil).Code(install).
			P("step2Token", nil).
			P("step2TokenFile", mail.Vars{"file": tokenFileExample, "plain": "sudo sh"}).
			Code("sudo sh -s -- --token-file "+tokenFileExample).
			P("step2Check", nil).Code("docker ps | grep gpunex-agent").
			P("step3", nil).
			P("welcome", nil)
		return e.SignOff()
	})
	msg.To, msg.DedupeKey = app.Email, fmt.Sprintf("application:%d:approved", app.ID)
	return msg
}

// rejectionEmail tells the applicant their application is not approved,
// with the reviewer's reason as written, in the applicant's language.
func (s *Service) rejectionEmail(app *models.ProviderApplication, reason string) mail.Message {
	base := s.publicURL()
	msg := mail.ForUser(app.UserID, func(lang models.Language) *mail.Email {
		return mail.Compose(lang, MailKindRejected).Subject(nil).Greeting(app.FullName).
			P("intro", nil).P("reason", nil).Quote(reason).
			P("again", nil).URL(base + "/provider/apply").SignOff()
	})
	msg.To, msg.DedupeKey = app.Email, fmt.Sprintf("application:%d:rejected", app.ID)
	return msg
}

// infoRequestEmail asks the applicant the reviewer's question, as
// written, in the applicant's language; eventID makes each request its own
// email.
func (s *Service) infoRequestEmail(app *models.ProviderApplication, question string, eventID int64) mail.Message {
	base := s.publicURL()
	msg := mail.ForUser(app.UserID, func(lang models.Language) *mail.Email {
		return mail.Compose(lang, MailKindInfoRequested).Subject(nil).Greeting(app.FullName).
			P("intro", nil).Quote(question).
			P("edit", nil).URL(base + "/provider/application").SignOff()
	})
	msg.To, msg.DedupeKey = app.Email, fmt.Sprintf("application:%d:info:%d", app.ID, eventID)
	return msg
}
