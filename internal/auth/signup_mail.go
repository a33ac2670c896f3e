package auth

import (
	"context"
	"fmt"
	"strings"
	"time"

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

// confirmation is the email that carries a new sign-up's link.
func (m SignUpMail) confirmation(p *models.PendingSignUp, token string) mail.Message {
	return mail.Message{
		To: p.Email, Kind: MailKindConfirmEmail,
		Subject: "Confirm your email to finish signing up for GPUnex",
		Text: fmt.Sprintf("Hello %s,\n\nTo finish creating your GPUnex account, confirm your email address by opening this link:\n\n%s%s?token=%s\n\n"+
			"The link works once, until %s. If you did not sign up for GPUnex, ignore this email: no account is created without the link.\n\nThe GPUnex team\n",
			p.Name, m.publicURL(), ConfirmEmailPath, token, p.ExpiresAt.UTC().Format(time.RFC1123)),
	}
}

// existingAccount is the email to the owner of an account when someone
// signs up with its address: the answer to the sign-up is the same either
// way, so only the owner learns the account exists.
func (m SignUpMail) existingAccount(owner *models.User) mail.Message {
	return mail.Message{
		To: owner.Email, Kind: MailKindSignUpExisting,
		Subject: "Someone tried to sign up for GPUnex with your email",
		Text: fmt.Sprintf("Hello %s,\n\nSomeone tried to create a GPUnex account with this email address, which already has one.\n\n"+
			"If it was you, sign in here instead: %s/login\n\n"+
			"Nothing changed: your account, password and sessions are as they were. If it was not you, you can ignore this email.\n\nThe GPUnex team\n",
			owner.Name, m.publicURL()),
	}
}
