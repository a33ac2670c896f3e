package onboarding

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// gpuRows turns the form's GPU entries into the rows of application
// appID, in form order.
func gpuRows(appID int64, gpus []GPUInput) []*models.ApplicationGpu {
	rows := make([]*models.ApplicationGpu, 0, len(gpus))
	for i, g := range gpus {
		row := &models.ApplicationGpu{
			ApplicationID: appID, Position: i, OtherModel: g.OtherModel,
			Quantity: g.Quantity, RAMGb: g.RAMGb, UploadGbps: g.UploadGbps, DownloadGbps: g.DownloadGbps,
			Availability: models.Availability{Kind: g.Availability.Kind, TimeZone: g.Availability.TimeZone, Windows: []*models.AvailabilityWindow{}},
			Location:     g.Location,
		}
		if g.OtherModel == nil {
			key := g.ModelKey
			row.ModelKey = &key
		}
		for _, w := range g.Availability.Windows {
			row.Availability.Windows = append(row.Availability.Windows, &models.AvailabilityWindow{Day: w.Day, Start: w.Start, End: w.End})
		}
		rows = append(rows, row)
	}
	return rows
}

// unchanged reports whether in, normalised, says exactly what app (as
// stored) and its GPU entries gpus (in form order) say.
func unchanged(app *models.ProviderApplication, gpus []*models.ApplicationGpu, in *Input) bool {
	same := app.FullName == in.FullName && app.Email == in.Email && samePtr(app.Company, in.Company) &&
		app.UpsProtected == in.UpsProtected && app.CommitmentMonths == in.CommitmentMonths &&
		samePtr(app.MaintenanceNotes, in.MaintenanceNotes)
	return same && slices.EqualFunc(gpus, gpuRows(app.ID, in.Gpus), sameGpu)
}

func sameGpu(a, b *models.ApplicationGpu) bool {
	return samePtr(a.ModelKey, b.ModelKey) && samePtr(a.OtherModel, b.OtherModel) &&
		a.Quantity == b.Quantity && a.RAMGb == b.RAMGb && a.UploadGbps == b.UploadGbps && a.DownloadGbps == b.DownloadGbps &&
		a.Availability.Kind == b.Availability.Kind && samePtr(a.Availability.TimeZone, b.Availability.TimeZone) &&
		slices.EqualFunc(a.Availability.Windows, b.Availability.Windows, func(x, y *models.AvailabilityWindow) bool { return *x == *y }) &&
		samePtr(a.Location.City, b.Location.City) && samePtr(a.Location.Country, b.Location.Country) &&
		samePtr(a.Location.Region, b.Location.Region)
}

func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// storedGpus reads app's GPU entries in form order.
func storedGpus(ctx context.Context, tx bun.Tx, appID int64) ([]*models.ApplicationGpu, error) {
	var gpus []*models.ApplicationGpu
	if err := tx.NewSelect().Model(&gpus).Where("application_id = ?", appID).OrderExpr("position ASC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("onboarding: unable to load GPU entries: %w", err)
	}
	return gpus, nil
}

// recordEdit records in app's history that viewer edited the application
// while it awaited review, with the answers the edit left. Consecutive
// edits by the same applicant are one step: when the latest step is
// already viewer's RESUBMITTED, it is moved to now and takes the new
// answers, its reply (the answer to the reviewer's question) kept;
// otherwise (the latest is the submission, or a reviewer's step) a
// RESUBMITTED step without a reply is added.
func (s *Service) recordEdit(ctx context.Context, tx bun.Tx, app *models.ProviderApplication, viewer *auth.Viewer, answers []models.ApplicationAnswer) error {
	last := new(models.ApplicationEvent)
	err := tx.NewSelect().Model(last).Where("application_id = ?", app.ID).OrderExpr("id DESC").Limit(1).Scan(ctx)
	if err != nil && !store.IsNoRows(err) {
		return fmt.Errorf("onboarding: unable to read history: %w", err)
	}
	if err == nil && last.Action == models.ActionResubmitted && last.ActorUserID == viewer.User.ID {
		last.At, last.ActorName, last.Answers = s.deps.Clock.Now(), viewer.User.Name, answers
		if _, err := tx.NewUpdate().Model(last).Column("at", "actor_name", "answers").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("onboarding: unable to record history: %w", err)
		}
		return nil
	}
	_, err = s.addSubmission(ctx, tx, app, viewer, models.ActionResubmitted, nil, answers)
	return err
}

// keepSubmittedAnswers stores app's answers as they stand (with its GPU
// entries gpus, in form order) on its last submission or resubmission step
// when that step has none: one recorded before steps kept their answers
// (migration 20261204000001 added them without filling the steps already
// there). The next resubmission's difference is then counted from them.
func (s *Service) keepSubmittedAnswers(ctx context.Context, tx bun.Tx, app *models.ProviderApplication, gpus []*models.ApplicationGpu) error {
	last := new(models.ApplicationEvent)
	err := tx.NewSelect().Model(last).Where("application_id = ?", app.ID).
		Where("action IN (?)", bun.List([]models.ApplicationAction{models.ActionSubmitted, models.ActionResubmitted})).
		OrderExpr("id DESC").Limit(1).Scan(ctx)
	if store.IsNoRows(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("onboarding: unable to read history: %w", err)
	}
	if last.Answers != nil {
		return nil
	}
	last.Answers = answersOf(app, gpus)
	if _, err := tx.NewUpdate().Model(last).Column("answers").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("onboarding: unable to record history: %w", err)
	}
	return nil
}
