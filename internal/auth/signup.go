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

// SignUp creates a customer account and a session of the given kind. It
// returns a *fault.Validation naming each bad field, changing nothing.
func (s *Service) SignUp(ctx context.Context, in SignUpInput, kind models.SessionKind) (*models.User, *Session, error) {
	email := NormalizeEmail(in.Email)
	name := strings.TrimSpace(in.Name)
	var v fault.Validation
	validateAccount(&v, validate.At("input"), email, in.Password, name)
	if err := v.Err(); err != nil {
		return nil, nil, err
	}
	if err := s.limiter.signUp(ctx, ClientAddr(ctx)); err != nil {
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
		user, err = s.insertUser(ctx, tx, email, name, hash, []models.Role{models.RoleCustomer})
		if err != nil {
			return err
		}
		for _, h := range s.onSignUp {
			if err := h(ctx, tx, user); err != nil {
				return err
			}
		}
		sess, err = s.newSession(ctx, tx, user.ID, kind)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	s.deps.Logger.InfoContext(ctx, "auth: user signed up", "user_id", user.ID)
	return user, sess, nil
}
