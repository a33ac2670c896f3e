package onboarding

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/cursor"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/provider"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Notification kinds of the onboarding journey.
const (
	KindApplicationSubmitted     = "APPLICATION_SUBMITTED"
	KindApplicationApproved      = "APPLICATION_APPROVED"
	KindApplicationRejected      = "APPLICATION_REJECTED"
	KindApplicationInfoRequested = "APPLICATION_INFO_REQUESTED"
)

// Outbox stores an email in the caller's transaction for later delivery.
type Outbox interface {
	Enqueue(ctx context.Context, idb bun.IDB, msg mail.Message) error
}

// Deps are what the onboarding service uses.
type Deps struct {
	DB *store.DB
	// Auth grants roles; Providers makes the provider an approval creates.
	Auth      *auth.Service
	Providers *provider.Service
	Notify    *notification.Service
	// Bus announces changes of applications (see Watch).
	Bus    bus.Bus
	Outbox Outbox
	Clock  clock.Clock
	Logger *slog.Logger
}

// Config tunes the onboarding service.
type Config struct {
	// PublicURL is the address providers reach the platform at, for the
	// links in emails (read when a message is written: the platform may
	// learn it only once it listens).
	PublicURL func() string
}

// Service runs applications and their review.
type Service struct {
	deps Deps
	cfg  Config
}

// New returns the onboarding service.
func New(deps Deps, cfg Config) *Service {
	if cfg.PublicURL == nil {
		cfg.PublicURL = func() string { return "" }
	}
	return &Service{deps: deps, cfg: cfg}
}

// publicURL is the platform's address without a trailing slash.
func (s *Service) publicURL() string { return strings.TrimRight(s.cfg.PublicURL(), "/") }

func invalidState(status models.ApplicationStatus, what string) error {
	return &fault.Validation{Problems: []fault.Problem{{
		Field: "id", Code: fault.InvalidState,
		Message: fmt.Sprintf("an application that is %s cannot be %s", strings.ToLower(strings.ReplaceAll(string(status), "_", " ")), what),
	}}}
}

// Submit stores a new application of viewer. A user may hold one open
// application at a time, and an approved provider none.
func (s *Service) Submit(ctx context.Context, viewer *auth.Viewer, in Input) (*models.ProviderApplication, error) {
	if err := in.normalize(); err != nil {
		return nil, err
	}
	var app *models.ProviderApplication
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var existing []models.ProviderApplication
		if err := tx.NewSelect().Model(&existing).Where("user_id = ? AND status IN (?)", viewer.User.ID,
			bun.List([]models.ApplicationStatus{models.ApplicationSubmitted, models.ApplicationInfoRequested, models.ApplicationApproved})).
			Scan(ctx); err != nil {
			return fmt.Errorf("onboarding: unable to check open applications: %w", err)
		}
		if len(existing) > 0 {
			for _, e := range existing {
				if e.Status == models.ApplicationApproved {
					return &fault.Validation{Problems: []fault.Problem{{Field: "input", Code: fault.AlreadyProvider, Message: "you are already a provider"}}}
				}
			}
			return &fault.Validation{Problems: []fault.Problem{{Field: "input", Code: fault.AlreadyOpen, Message: "you already have an application under review; edit it instead"}}}
		}
		now := s.deps.Clock.Now()
		tier, reasons := SuggestTier(&in)
		app = &models.ProviderApplication{
			UserID: viewer.User.ID, Status: models.ApplicationSubmitted,
			SuggestionTier: tier, SuggestionReasons: reasons, SubmittedAt: now, UpdatedAt: now,
		}
		applyInput(app, &in)
		if _, err := tx.NewInsert().Model(app).Returning("id").Exec(ctx); err != nil {
			if s.deps.DB.IsUniqueViolation(err) {
				return &fault.Validation{Problems: []fault.Problem{{Field: "input", Code: fault.AlreadyOpen, Message: "you already have an application under review; edit it instead"}}}
			}
			return fmt.Errorf("onboarding: unable to store application: %w", err)
		}
		return s.queueForReview(ctx, tx, app, viewer, models.ActionSubmitted, in.Gpus)
	})
	if err != nil {
		return nil, err
	}
	s.deps.Logger.InfoContext(ctx, "onboarding: application submitted", "application_id", app.ID, "suggested_tier", app.SuggestionTier)
	return s.Get(ctx, app.ID)
}

// Update replaces the answers of viewer's open application; it returns to
// SUBMITTED for review (RESUBMITTED when more information was asked for).
func (s *Service) Update(ctx context.Context, viewer *auth.Viewer, id int64, in Input) (*models.ProviderApplication, error) {
	if err := in.normalize(); err != nil {
		return nil, err
	}
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		app, err := s.loadForChange(ctx, tx, id)
		if err != nil {
			return err
		}
		if app.UserID != viewer.User.ID {
			return fault.E(fault.Forbidden, "only the applicant may edit an application")
		}
		if !app.Status.IsOpen() {
			return invalidState(app.Status, "edited")
		}
		tier, reasons := SuggestTier(&in)
		applyInput(app, &in)
		app.Status = models.ApplicationSubmitted
		app.SuggestionTier, app.SuggestionReasons = tier, reasons
		app.UpdatedAt = s.deps.Clock.Now()
		if _, err := tx.NewUpdate().Model(app).Column("full_name", "email", "company", "ups_protected", "commitment_months",
			"maintenance_notes", "status", "suggested_tier", "suggested_reasons", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("onboarding: unable to update application: %w", err)
		}
		if _, err := tx.NewDelete().Model((*models.ApplicationGpu)(nil)).Where("application_id = ?", app.ID).Exec(ctx); err != nil {
			return fmt.Errorf("onboarding: unable to replace GPU entries: %w", err)
		}
		return s.queueForReview(ctx, tx, app, viewer, models.ActionResubmitted, in.Gpus)
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// queueForReview completes a submission or resubmission of app, whose
// answers tx has just stored: it stores the GPU entries, records action in
// the history, announces the change and tells the admins.
func (s *Service) queueForReview(ctx context.Context, tx bun.Tx, app *models.ProviderApplication, viewer *auth.Viewer, action models.ApplicationAction, gpus []GPUInput) error {
	if err := s.insertGpus(ctx, tx, app, gpus); err != nil {
		return err
	}
	if _, err := s.addEvent(ctx, tx, app, viewer, action, nil, nil); err != nil {
		return err
	}
	s.announce(ctx, app.ID)
	return s.notifyAdmins(ctx, tx, app)
}

func applyInput(app *models.ProviderApplication, in *Input) {
	app.FullName, app.Email, app.Company = in.FullName, in.Email, in.Company
	app.UpsProtected, app.CommitmentMonths, app.MaintenanceNotes = in.UpsProtected, in.CommitmentMonths, in.MaintenanceNotes
}

func (s *Service) insertGpus(ctx context.Context, tx bun.Tx, app *models.ProviderApplication, gpus []GPUInput) error {
	rows := make([]*models.ApplicationGpu, 0, len(gpus))
	for i, g := range gpus {
		row := &models.ApplicationGpu{
			ApplicationID: app.ID, Position: i, OtherModel: g.OtherModel,
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
	if _, err := tx.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("onboarding: unable to store GPU entries: %w", err)
	}
	return nil
}

// addEvent records a step of app's history and returns its id.
func (s *Service) addEvent(ctx context.Context, tx bun.IDB, app *models.ProviderApplication, actor *auth.Viewer, action models.ApplicationAction, message *string, tier *models.ProviderTier) (int64, error) {
	ev := &models.ApplicationEvent{
		ApplicationID: app.ID, ActorUserID: actor.User.ID, ActorName: actor.User.Name, ActorIsAdmin: actor.IsAdmin(),
		Action: action, Message: message, Tier: tier, At: s.deps.Clock.Now(),
	}
	if _, err := tx.NewInsert().Model(ev).Returning("id").Exec(ctx); err != nil {
		return 0, fmt.Errorf("onboarding: unable to record history: %w", err)
	}
	return ev.ID, nil
}

// notifyAdmins tells every admin, in the app, that an application awaits
// review.
func (s *Service) notifyAdmins(ctx context.Context, tx bun.IDB, app *models.ProviderApplication) error {
	var admins []int64
	if err := tx.NewSelect().Model((*models.UserRole)(nil)).Column("user_id").Where("role = ?", models.RoleAdmin).Scan(ctx, &admins); err != nil {
		return fmt.Errorf("onboarding: unable to list admins: %w", err)
	}
	for _, id := range admins {
		err := s.deps.Notify.Add(ctx, tx, &models.Notification{
			UserID: id, Kind: KindApplicationSubmitted,
			Title:  "Provider application to review",
			Body:   fmt.Sprintf("%s's application is waiting for review.", app.FullName),
			Params: map[string]string{"applicant": app.FullName, "applicationId": strconv.FormatInt(app.ID, 10)},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// withDetails makes q, a select of applications (alias pa), load their
// GPU entries in form order and their history oldest first: one query per
// relation for all the applications q finds.
func withDetails(q *bun.SelectQuery) *bun.SelectQuery {
	return q.
		Relation("Gpus", func(q *bun.SelectQuery) *bun.SelectQuery { return q.OrderExpr("ag.position ASC") }).
		Relation("Events", func(q *bun.SelectQuery) *bun.SelectQuery { return q.OrderExpr("ae.id ASC") })
}

// Get loads an application with its GPU entries and history.
func (s *Service) Get(ctx context.Context, id int64) (*models.ProviderApplication, error) {
	app := new(models.ProviderApplication)
	err := withDetails(s.deps.DB.NewSelect().Model(app)).Where("pa.id = ?", id).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, fault.E(fault.NotFound, "no such application")
	}
	if err != nil {
		return nil, fmt.Errorf("onboarding: unable to load application: %w", err)
	}
	return app, nil
}

// GetFor loads an application for viewer: its applicant or an admin; for
// anyone else it does not exist.
func (s *Service) GetFor(ctx context.Context, viewer *auth.Viewer, id int64) (*models.ProviderApplication, error) {
	app, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if app.UserID != viewer.User.ID && !viewer.IsAdmin() {
		return nil, fault.E(fault.NotFound, "no such application")
	}
	return app, nil
}

// Latest returns userID's most recent application, or nil.
func (s *Service) Latest(ctx context.Context, userID int64) (*models.ProviderApplication, error) {
	app := new(models.ProviderApplication)
	err := withDetails(s.deps.DB.NewSelect().Model(app)).Where("pa.user_id = ?", userID).OrderExpr("pa.id DESC").Limit(1).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("onboarding: unable to find application: %w", err)
	}
	return app, nil
}

// Page is a page of applications, newest first.
type Page struct {
	Items       []*models.ProviderApplication
	HasNextPage bool
	TotalCount  int
}

// Cursor encodes an id as an opaque pagination cursor.
func Cursor(id int64) string { return cursor.Encode("application", id) }

func parseCursor(c string) (int64, bool) { return cursor.Decode("application", c) }

// List returns applications for review, newest first, optionally by status.
// It reads the page with its GPU entries and history in three queries, and
// counts the matches only when the page does not show them all.
func (s *Service) List(ctx context.Context, status *models.ApplicationStatus, first int, after string) (*Page, error) {
	if first < 1 || first > 100 {
		return nil, fault.E(fault.Invalid, "first must be between 1 and 100")
	}
	var cursorID int64
	if after != "" {
		id, ok := parseCursor(after)
		if !ok {
			return nil, fault.E(fault.Invalid, "after is not a valid cursor")
		}
		cursorID = id
	}
	filter := func(q *bun.SelectQuery) *bun.SelectQuery {
		if status != nil {
			q = q.Where("pa.status = ?", *status)
		}
		return q
	}
	var apps []*models.ProviderApplication
	// One more than asked says whether another page follows.
	q := withDetails(filter(s.deps.DB.NewSelect().Model(&apps))).OrderExpr("pa.id DESC").Limit(int64(first + 1))
	if after != "" {
		q = q.Where("pa.id < ?", cursorID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("onboarding: unable to list applications: %w", err)
	}
	page := &Page{Items: apps}
	if len(apps) > first {
		page.Items, page.HasNextPage = apps[:first], true
	}
	if after == "" && !page.HasNextPage {
		// The first page holds every match: nothing left to count.
		page.TotalCount = len(page.Items)
		return page, nil
	}
	total, err := filter(s.deps.DB.NewSelect().Model((*models.ProviderApplication)(nil))).Count(ctx)
	if err != nil {
		return nil, fmt.Errorf("onboarding: unable to count applications: %w", err)
	}
	page.TotalCount = int(total)
	return page, nil
}
