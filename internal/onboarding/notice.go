package onboarding

import (
	"context"
	"fmt"
	"strconv"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/models"
)

// notifyAdmins tells every admin, in the app, that app awaits review: it
// was just submitted, or resubmitted after a request for more information.
// An admin whose previous notice about app is still unread gets that one
// renewed instead of a second (see the package doc): the queue shows each
// application once.
func (s *Service) notifyAdmins(ctx context.Context, tx bun.Tx, app *models.ProviderApplication, resubmitted bool) error {
	var admins []int64
	if err := tx.NewSelect().Model((*models.UserRole)(nil)).Column("user_id").Where("role = ?", models.RoleAdmin).Scan(ctx, &admins); err != nil {
		return fmt.Errorf("onboarding: unable to list admins: %w", err)
	}
	var notices []models.ApplicationNotice
	if err := tx.NewSelect().Model(&notices).Where("application_id = ?", app.ID).Scan(ctx); err != nil {
		return fmt.Errorf("onboarding: unable to load the admins' notices: %w", err)
	}
	previous := make(map[int64]int64, len(notices)) // admin → notification
	for _, n := range notices {
		previous[n.UserID] = n.NotificationID
	}
	for _, admin := range admins {
		n := reviewNotice(app, admin, resubmitted)
		if id, ok := previous[admin]; ok {
			renewed, err := s.deps.Notify.Renew(ctx, tx, id, n)
			if err != nil {
				return err
			}
			if renewed {
				continue
			}
		}
		if err := s.deps.Notify.Add(ctx, tx, n); err != nil {
			return err
		}
		notice := &models.ApplicationNotice{ApplicationID: app.ID, UserID: admin, NotificationID: n.ID}
		if _, err := tx.NewInsert().Model(notice).
			On("CONFLICT (application_id, user_id) DO UPDATE").Set("notification_id = EXCLUDED.notification_id").
			Exec(ctx); err != nil {
			return fmt.Errorf("onboarding: unable to remember the admin's notice: %w", err)
		}
	}
	return nil
}

// reviewNotice is the notification that tells admin app awaits review.
// Its kind is the same for a first submission and a resubmission: either
// way the admin opens the application's review page.
func reviewNotice(app *models.ProviderApplication, admin int64, resubmitted bool) *models.Notification {
	body := fmt.Sprintf("%s's application is waiting for review.", app.FullName)
	if resubmitted {
		body = fmt.Sprintf("%s answered and resubmitted their application; it is waiting for review.", app.FullName)
	}
	return &models.Notification{
		UserID: admin, Kind: KindApplicationSubmitted,
		Title:  "Provider application to review",
		Body:   body,
		Params: map[string]string{"applicant": app.FullName, "applicationId": strconv.FormatInt(app.ID, 10)},
	}
}
