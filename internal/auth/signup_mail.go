package auth

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/models"
)

// The kinds of the emails of the public sign-up.
const (
	// MailKindConfirmEmail carries the link that creates a new account.
	MailKindConfirmEmail = "account.confirm_email"
	// MailKindSignUpExisting tells the owner of an account that someone
	// tried to sign up with its address.
	MailKindSignUpExisting = "account.signup_existing"
)

// ConfirmEmailPath is the SPA page the confirmation link opens; the token
// follows as ?token=.
const ConfirmEmailPath = "/confirm-email"

// MailEnqueuer stores an email in the caller's transaction for later
// delivery (mail.Outbox does).
type MailEnqueuer interface {
	Enqueue(ctx context.Context, idb bun.IDB, msg mail.Message) error
}

// SignUpMail is what the public sign-up needs to write its emails.
type SignUpMail struct {
	Outbox MailEnqueuer
	// PublicURL is where browsers reach the platform, for the links.
	PublicURL func() string
}

// UseSignUpMail gives s the outbox and public URL that RequestSignUp
// writes its emails with (the platform calls it once, before serving).
// Without it RequestSignUp fails (INTERNAL).
func (s *Service) UseSignUpMail(m SignUpMail) { s.signUpMailer = &m }

// signUpMail returns what UseSignUpMail gave s.
func (s *Service) signUpMail() (SignUpMail, error) {
	if s.signUpMailer == nil {
		return SignUpMail{}, fmt.Errorf("auth: sign-up mail is not configured (UseSignUpMail)")
	}
	return *s.signUpMailer, nil
}

func (m SignUpMail) publicURL() string {
	if m.PublicURL == nil {
		return ""
	}
	return strings.TrimRight(m.PublicURL(), "/")
}

// confirmation is the email that carries a new sign-up's link, in the
// language of the sign-up's request (the address has no account to read
// one from).
func (m SignUpMail) confirmation(p *models.PendingSignUp, token string) mail.Message {
	link := m.publicURL() + ConfirmEmailPath + "?token=" + token
	msg := mail.InLanguage(p.Language, func(lang models.Language) *mail.Email {
		e := mail.Compose(lang, MailKindConfirmEmail).Subject(nil).Greeting(p.Name)
		return e.P("intro", nil).URL(link).
			P("expiry", mail.Vars{"expires": e.DateTime(p.ExpiresAt)}).P("ignore", nil).SignOff()
	})
	msg.To = p.Email
	return msg
}

// existingAccount is the email to the owner of an account when someone
// signs up with its address, in the owner's language: the answer to the
// sign-up is the same either way, so only the owner learns the account
// exists.
func (m SignUpMail) existingAccount(owner *models.User) mail.Message {
	msg := mail.InLanguage(owner.Language, func(lang models.Language) *mail.Email {
		return mail.Compose(lang, MailKindSignUpExisting).Subject(nil).Greeting(owner.Name).
			P("intro", nil).P("signIn", nil).URL(m.publicURL()+"/login").P("nothing", nil).SignOff()
	})
	msg.To = owner.Email
	return msg
}
