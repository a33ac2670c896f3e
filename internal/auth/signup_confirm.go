package auth

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// SignUpTokenPrefix starts every email-confirmation token, so a leaked one
// is easy to recognise.
const SignUpTokenPrefix = "gpx_c_"

// SignUpTokenTTL is how long a confirmation link works.
const SignUpTokenTTL = 24 * time.Hour

// SignUpRequest is the public sign-up's input: the account's fields and
// the language the person is reading the SPA in. The confirmation email is
// written in that language and the account starts with it; an invalid or
// empty language is English.
type SignUpRequest struct {
	SignUpInput
	Language models.Language
}

// RequestSignUp is the public sign-up. It validates the input as SignUp
// does (a *fault.Validation naming each bad field, the per-address limit)
// and then answers nil whether or not the email has an account, after the
// same work either way (the password is hashed in both):
//
//   - a new email gets a pending sign-up, kept SignUpTokenTTL, and an
//     email with a one-time link to ConfirmEmail (only the token's SHA-256
//     is stored);
//   - an existing account's owner gets an email saying someone tried, and
//     nothing else changes.
//
// The email is enqueued in the transaction that records the sign-up.
func (s *Service) RequestSignUp(ctx context.Context, in SignUpRequest) error {
	m, err := s.signUpMail()
	if err != nil {
		return err
	}
	email, name, err := s.checkSignUp(ctx, in.SignUpInput)
	if err != nil {
		return err
	}
	hash, err := s.hasher.hash(ctx, in.Password)
	if err != nil {
		return fmt.Errorf("auth: unable to hash password: %w", err)
	}
	var ownerID int64
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := s.deps.Clock.Now().UTC()
		if _, err := tx.NewDelete().Model((*models.PendingSignUp)(nil)).Where("expires_at <= ?", now).Exec(ctx); err != nil {
			return fmt.Errorf("auth: unable to forget expired sign-ups: %w", err)
		}
		owner := new(models.User)
		err := tx.NewSelect().Model(owner).Where("email = ?", email).Scan(ctx)
		if err == nil {
			ownerID = owner.ID
			return m.Outbox.Enqueue(ctx, tx, m.existingAccount(owner))
		}
		if !store.IsNoRows(err) {
			return fmt.Errorf("auth: unable to look up user: %w", err)
		}
		token := newToken(SignUpTokenPrefix)
		p := &models.PendingSignUp{
			Email: email, Name: name, PasswordHash: hash, TokenHash: HashToken(token),
			Language: in.Language.Or(models.DefaultLanguage), CreatedAt: now, ExpiresAt: now.Add(SignUpTokenTTL),
		}
		if _, err := tx.NewInsert().Model(p).Exec(ctx); err != nil {
			return fmt.Errorf("auth: unable to record the sign-up: %w", err)
		}
		return m.Outbox.Enqueue(ctx, tx, m.confirmation(p, token))
	})
	if err != nil {
		return err
	}
	if ownerID != 0 {
		s.deps.Logger.InfoContext(ctx, "auth: sign-up with the email of an account; its owner is told", "user_id", ownerID)
	} else {
		s.deps.Logger.InfoContext(ctx, "auth: sign-up waits for its email to be confirmed")
	}
	return nil
}

// ConfirmEmail creates the account of the pending sign-up whose link
// carried token, exactly as SignUp does (customer role, the sign-up hooks, a
// session of kind), and consumes every pending sign-up of that address. A
// malformed, unknown, used or expired token, or one whose email has got an
// account in the meantime, is INVALID on the field token and changes
// nothing.
func (s *Service) ConfirmEmail(ctx context.Context, token string, kind models.SessionKind) (*models.User, *Session, error) {
	if !looksLikeToken(SignUpTokenPrefix, token) {
		return nil, nil, invalidSignUpToken()
	}
	var user *models.User
	var sess *Session
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p := new(models.PendingSignUp)
		err := s.deps.DB.ForUpdate(tx.NewSelect().Model(p).Where("token_hash = ?", HashToken(token))).Scan(ctx)
		if store.IsNoRows(err) {
			return invalidSignUpToken()
		}
		if err != nil {
			return fmt.Errorf("auth: unable to look up the sign-up: %w", err)
		}
		if !s.deps.Clock.Now().Before(p.ExpiresAt) {
			return invalidSignUpToken()
		}
		taken, err := tx.NewSelect().Model((*models.User)(nil)).Where("email = ?", p.Email).Exists(ctx)
		if err != nil {
			return fmt.Errorf("auth: unable to look up user: %w", err)
		}
		if taken {
			return invalidSignUpToken()
		}
		if _, err := tx.NewDelete().Model((*models.PendingSignUp)(nil)).Where("email = ?", p.Email).Exec(ctx); err != nil {
			return fmt.Errorf("auth: unable to consume the sign-up: %w", err)
		}
		user, sess, err = s.openAccount(ctx, tx, p.Email, p.Name, p.PasswordHash, p.Language, kind)
		if _, ok := fault.AsValidation(err); ok {
			// The email got an account between the check and the insert.
			return invalidSignUpToken()
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	s.deps.Logger.InfoContext(ctx, "auth: user signed up", "user_id", user.ID)
	return user, sess, nil
}

// invalidSignUpToken is the one answer to every confirmation token that
// does not create an account, so the answer tells nothing more.
func invalidSignUpToken() error {
	var v fault.Validation
	v.Add("token", fault.InvalidValue, "this confirmation link is not valid: it was used already, it expired, or it is incomplete; sign up again")
	return &v
}
