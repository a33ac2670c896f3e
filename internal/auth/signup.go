package auth

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// SignUp creates a customer account and a session of the given kind at
// once, without confirming the email. It returns a *fault.Validation naming
// each bad field (TAKEN on input.email for an existing account), changing
// nothing.
//
// The public signUp mutation does not call it: its answer would tell anyone
// whether an email has an account. That goes through RequestSignUp and
// ConfirmEmail, whose last step creates the account through the same code
// as SignUp. SignUp stays for callers that vouch for the address
// themselves, such as the tests of other services.
func (s *Service) SignUp(ctx context.Context, in SignUpInput, kind models.SessionKind) (*models.User, *Session, error) {
	email, name, err := s.checkSignUp(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	hash, err := s.hasher.hash(ctx, in.Password)
	if err != nil {
		return nil, nil, fmt.Errorf("auth: unable to hash password: %w", err)
	}
	var user *models.User
	var sess *Session
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		user, sess, err = s.openAccount(ctx, tx, email, name, hash, models.DefaultLanguage, kind)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	s.deps.Logger.InfoContext(ctx, "auth: user signed up", "user_id", user.ID)
	return user, sess, nil
}

// checkSignUp validates sign-up input and counts the attempt against the
// client address's sign-up limit. It returns the normalised email and the
// trimmed name.
func (s *Service) checkSignUp(ctx context.Context, in SignUpInput) (email, name string, err error) {
	email = NormalizeEmail(in.Email)
	name = strings.TrimSpace(in.Name)
	var v fault.Validation
	validateAccount(&v, validate.At("input"), email, in.Password, name)
	if err := v.Err(); err != nil {
		return "", "", err
	}
	if err := s.limiter.signUp(ctx, ClientAddr(ctx)); err != nil {
		return "", "", err
	}
	return email, name, nil
}

// openAccount creates a customer with an argon2id hash already made and
// the language lang, runs the sign-up hooks and opens a session, all in tx.
func (s *Service) openAccount(ctx context.Context, tx bun.Tx, email, name, hash string, lang models.Language, kind models.SessionKind) (*models.User, *Session, error) {
	user, err := s.insertUser(ctx, tx, email, name, hash, lang, []models.Role{models.RoleCustomer})
	if err != nil {
		return nil, nil, err
	}
	for _, h := range s.onSignUp {
		if err := h(ctx, tx, user); err != nil {
			return nil, nil, err
		}
	}
	sess, err := s.newSession(ctx, tx, user.ID, kind)
	if err != nil {
		return nil, nil, err
	}
	return user, sess, nil
}
