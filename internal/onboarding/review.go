package onboarding

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// requiredMessage validates a reviewer's reason or question.
func requiredMessage(field, msg string) (string, error) {
	msg = strings.TrimSpace(msg)
	var v fault.Validation
	checkText(&v, field, msg, MaxMessageLength, true)
	return msg, v.Err()
}

// loadForChange reads the application inside tx and locks it, so
// decisions and the applicant's edits on one application take turns.
func (s *Service) loadForChange(ctx context.Context, tx bun.Tx, id int64) (*models.ProviderApplication, error) {
	app := new(models.ProviderApplication)
	if err := s.deps.DB.ForUpdate(tx.NewSelect().Model(app).Where("id = ?", id)).Scan(ctx); err != nil {
		if store.IsNoRows(err) {
			return nil, fault.E(fault.NotFound, "no such application")
		}
		return nil, fmt.Errorf("onboarding: unable to load application: %w", err)
	}
	return app, nil
}

// Approve makes the applicant a provider with tier (the suggestion when
// nil). It is idempotent: approving an approved application returns its
// provider and changes nothing. Enterprise without UPS is refused.
func (s *Service) Approve(ctx context.Context, admin *auth.Viewer, id int64, tier *models.ProviderTier, message *string) (*models.ProviderApplication, *models.Provider, error) {
	message = trimmed(message)
	if message != nil {
		var v fault.Validation
		checkText(&v, "message", *message, MaxMessageLength, false)
		if err := v.Err(); err != nil {
			return nil, nil, err
		}
	}
	var provider *models.Provider
	app, err := s.decide(ctx, admin, id, decision{
		to: models.ApplicationApproved, action: models.ActionApproved, verb: "approved", alreadyDone: models.ApplicationApproved,
		message: message,
		prepare: func(app *models.ProviderApplication) error {
			chosen := app.SuggestionTier
			if tier != nil {
				chosen = *tier
			}
			if chosen == models.TierEnterprise && !app.UpsProtected {
				return &fault.Validation{Problems: []fault.Problem{{Field: "tier", Code: fault.UPSRequired, Message: "Enterprise requires UPS protection; approve as Community or ask the applicant about UPS"}}}
			}
			app.Tier = &chosen
			return nil
		},
		effect: func(ctx context.Context, tx bun.Tx, app *models.ProviderApplication) (err error) {
			// Creating the provider grants the role, whose after-commit
			// eviction of the applicant's cached sessions (auth.GrantRole)
			// runs before the notification's hook added below.
			provider, err = s.deps.Providers.Create(ctx, tx, app)
			return err
		},
		notification: func(app *models.ProviderApplication) *models.Notification {
			return &models.Notification{
				UserID: app.UserID, Kind: KindApplicationApproved,
				Title:  "Your provider application is approved",
				Body:   fmt.Sprintf("Welcome aboard as a %s provider. Create an agent token and install the agent to bring your GPUs online.", tierLabel(*app.Tier)),
				Params: map[string]string{"tier": string(*app.Tier), "applicationId": strconv.FormatInt(app.ID, 10)},
			}
		},
		email: func(app *models.ProviderApplication, _ int64) mail.Message {
			return s.approvalEmail(app, message)
		},
	})
	if err != nil {
		return nil, nil, err
	}
	if provider == nil {
		// Approved before: the provider that approval created.
		if provider, err = s.deps.Providers.OfApplication(ctx, id); err != nil {
			return nil, nil, err
		}
	}
	return app, provider, nil
}

func tierLabel(t models.ProviderTier) string {
	if t == models.TierEnterprise {
		return "Enterprise"
	}
	return "Community"
}

// decision is a reviewer's answer that sends an open application to a new
// status, with an optional message the applicant reads: an approval, a
// rejection or a request for more information. Each is recorded in the
// history, notified in the app and emailed, in one transaction, and
// announced to watchers once it commits.
type decision struct {
	to     models.ApplicationStatus
	action models.ApplicationAction
	verb   string // for the invalid-state message: "rejected"
	// alreadyDone is the status in which the decision changes nothing.
	alreadyDone models.ApplicationStatus
	// message is the reviewer's reason, question or note, if any.
	message *string
	// prepare, if set, may refuse the decision or complete it (the tier
	// of an approval) on the locked application, before it is stored.
	prepare func(app *models.ProviderApplication) error
	// effect, if set, does the decision's further work in its
	// transaction, once the application is stored (an approval creates
	// the provider).
	effect       func(ctx context.Context, tx bun.Tx, app *models.ProviderApplication) error
	notification func(app *models.ProviderApplication) *models.Notification
	// email builds the message; eventID makes its dedupe key unique per
	// decision.
	email func(app *models.ProviderApplication, eventID int64) mail.Message
}

// decide applies d to application id in one transaction: status (and the
// tier an approval sets; an open application has none to overwrite),
// history, d's effect, in-app notification and email; then it announces
// the change. A decision that is already made changes and announces
// nothing.
func (s *Service) decide(ctx context.Context, admin *auth.Viewer, id int64, d decision) (*models.ProviderApplication, error) {
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		app, err := s.loadForChange(ctx, tx, id)
		if err != nil {
			return err
		}
		if d.alreadyDone != "" && app.Status == d.alreadyDone {
			return nil
		}
		if !app.Status.IsOpen() {
			return invalidState(app.Status, d.verb)
		}
		if d.prepare != nil {
			if err := d.prepare(app); err != nil {
				return err
			}
		}
		app.Status, app.UpdatedAt = d.to, s.deps.Clock.Now()
		if _, err := tx.NewUpdate().Model(app).Column("status", "tier", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("onboarding: unable to record the decision: %w", err)
		}
		eventID, err := s.addEvent(ctx, tx, app, admin, d.action, d.message, app.Tier)
		if err != nil {
			return err
		}
		if d.effect != nil {
			if err := d.effect(ctx, tx, app); err != nil {
				return err
			}
		}
		if err := s.deps.Notify.Add(ctx, tx, d.notification(app)); err != nil {
			return err
		}
		if err := s.deps.Outbox.Enqueue(ctx, tx, d.email(app, eventID)); err != nil {
			return err
		}
		s.announce(ctx, app.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// Reject closes an open application with a reason the applicant sees.
// Rejecting a rejected application changes nothing.
func (s *Service) Reject(ctx context.Context, admin *auth.Viewer, id int64, reason string) (*models.ProviderApplication, error) {
	reason, err := requiredMessage("reason", reason)
	if err != nil {
		return nil, err
	}
	return s.decide(ctx, admin, id, decision{
		to: models.ApplicationRejected, action: models.ActionRejected, verb: "rejected", alreadyDone: models.ApplicationRejected,
		message: &reason,
		notification: func(app *models.ProviderApplication) *models.Notification {
			return &models.Notification{
				UserID: app.UserID, Kind: KindApplicationRejected,
				Title:  "Your provider application was not approved",
				Body:   "Reason: " + reason,
				Params: map[string]string{"reason": reason, "applicationId": strconv.FormatInt(app.ID, 10)},
			}
		},
		email: func(app *models.ProviderApplication, _ int64) mail.Message {
			return s.rejectionEmail(app, reason)
		},
	})
}

// RequestInfo asks the applicant for more information; they edit and
// resubmit with Update.
func (s *Service) RequestInfo(ctx context.Context, admin *auth.Viewer, id int64, message string) (*models.ProviderApplication, error) {
	message, err := requiredMessage("message", message)
	if err != nil {
		return nil, err
	}
	return s.decide(ctx, admin, id, decision{
		to: models.ApplicationInfoRequested, action: models.ActionInfoRequested, verb: "sent back for more information",
		message: &message,
		notification: func(app *models.ProviderApplication) *models.Notification {
			return &models.Notification{
				UserID: app.UserID, Kind: KindApplicationInfoRequested,
				Title:  "More information needed for your provider application",
				Body:   message,
				Params: map[string]string{"message": message, "applicationId": strconv.FormatInt(app.ID, 10)},
			}
		},
		email: func(app *models.ProviderApplication, eventID int64) mail.Message {
			return s.infoRequestEmail(app, message, eventID)
		},
	})
}
