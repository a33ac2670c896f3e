package auth

import (
	"context"
	"fmt"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// SetLanguage makes lang the language user userID reads the SPA and their
// emails in, and returns it. A language GPUnex does not speak is INVALID
// on the field language and changes nothing. Only the signed-in user calls
// it for themselves: the resolver passes the viewer's id, never one from
// the request.
func (s *Service) SetLanguage(ctx context.Context, userID int64, lang models.Language) (models.Language, error) {
	if !lang.IsValid() {
		var v fault.Validation
		v.Add("language", fault.InvalidValue, fmt.Sprintf("%q is not a language GPUnex speaks", lang))
		return "", &v
	}
	res, err := s.deps.DB.NewUpdate().Model((*models.User)(nil)).Set("language = ?", lang).Set("updated_at = ?", s.deps.Clock.Now()).
		Where("id = ?", userID).Exec(ctx)
	if err != nil {
		return "", fmt.Errorf("auth: unable to store the language: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return "", fault.E(fault.NotFound, "no such user")
	}
	s.UserChanged(ctx, userID)
	s.deps.Logger.InfoContext(ctx, "auth: user changed language", "user_id", userID, "language", string(lang))
	return lang, nil
}
