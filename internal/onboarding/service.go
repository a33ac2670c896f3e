package onboarding

import (
	"context"
	"fmt"
	"log/slog"
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

// DefaultMaxResubmissions is Config.MaxResubmissions when it is not set.
const DefaultMaxResubmissions = 5

// Config tunes the onboarding service.
type Config struct {
	// PublicURL is the address providers reach the platform at, for the
	// links in emails (read when a message is written: the platform may
	// learn it only once it listens).
	PublicURL func() string
	// MaxResubmissions bounds how often an applicant may come back after
	// a reviewer's answer other than an approval: an application may be
	// resubmitted after requests for more information at most this many
	// times, and a user may apply again after rejections at most this
	// many times (see the package doc). Zero or less takes
	// DefaultMaxResubmissions.
	MaxResubmissions int
}

// Service runs applications and their review.
type Service struct {
	deps Deps
	cfg  Config
	// changes loads each changed application once per replica for every
	// admin watching (see Watch).
	changes *bus.Shared[*Change]
}

// New returns the onboarding service.
func New(deps Deps, cfg Config) *Service {
	if cfg.PublicURL == nil {
		cfg.PublicURL = func() string { return "" }
	}
	if cfg.MaxResubmissions <= 0 {
		cfg.MaxResubmissions = DefaultMaxResubmissions
	}
	s := &Service{deps: deps, cfg: cfg}
	s.changes = bus.NewShared(deps.Bus, deps.Logger, s.resolveChange)
	return s
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
// application at a time, and an approved provider none; a user whose
// applications were rejected may apply again at most MaxResubmissions
// times.
func (s *Service) Submit(ctx context.Context, viewer *auth.Viewer, in Input) (*models.ProviderApplication, error) {
	if err := in.normalize(); err != nil {
		return nil, err
	}
	var app *models.ProviderApplication
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.checkMayApply(ctx, tx, viewer); err != nil {
			return err
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
				return alreadyOpen()
			}
			return fmt.Errorf("onboarding: unable to store application: %w", err)
		}
		if err := s.insertGpus(ctx, tx, app, in.Gpus); err != nil {
			return err
		}
		if _, err := s.addSubmission(ctx, tx, app, viewer, models.ActionSubmitted, nil, answersOf(app, gpuRows(app.ID, in.Gpus))); err != nil {
			return err
		}
		s.announce(ctx, app.ID)
		return s.notifyAdmins(ctx, tx, app, false)
	})
	if err != nil {
		return nil, err
	}
	s.deps.Logger.InfoContext(ctx, "onboarding: application submitted", "application_id", app.ID, "suggested_tier", app.SuggestionTier)
	return s.Get(ctx, app.ID)
}

func alreadyOpen() error {
	return &fault.Validation{Problems: []fault.Problem{{Field: "input", Code: fault.AlreadyOpen, Message: "you already have an application under review; edit it instead"}}}
}

// checkMayApply refuses a new application of viewer while one is open, once
// one is approved, and after more rejections than MaxResubmissions allows.
func (s *Service) checkMayApply(ctx context.Context, tx bun.Tx, viewer *auth.Viewer) error {
	var statuses []models.ApplicationStatus
	if err := tx.NewSelect().Model((*models.ProviderApplication)(nil)).Column("status").
		Where("user_id = ?", viewer.User.ID).Scan(ctx, &statuses); err != nil {
		return fmt.Errorf("onboarding: unable to check earlier applications: %w", err)
	}
	open, rejected := false, 0
	for _, st := range statuses {
		switch {
		case st == models.ApplicationApproved:
			return &fault.Validation{Problems: []fault.Problem{{Field: "input", Code: fault.AlreadyProvider, Message: "you are already a provider"}}}
		case st.IsOpen():
			open = true
		case st == models.ApplicationRejected:
			rejected++
		}
	}
	if open {
		return alreadyOpen()
	}
	if rejected > s.cfg.MaxResubmissions {
		return &fault.Validation{Problems: []fault.Problem{{Field: "input", Code: fault.TooMany,
			Message: fmt.Sprintf("you have applied again %d times after a rejection, the most allowed; contact GPUnex to apply again", s.cfg.MaxResubmissions)}}}
	}
	return nil
}

// Update replaces the answers of viewer's open application. Awaiting a
// decision (SUBMITTED), it is an edit: answers that change nothing change,
// record and announce nothing; other edits are recorded, folded into one
// history step, and tell no admin. Awaiting the applicant's answer
// (INFO_REQUESTED), it is a resubmission: the application returns to
// SUBMITTED, the admins are told, and past MaxResubmissions it is refused
// (TOO_MANY on id) and changes nothing. reply, if given, is the applicant's
// answer to the reviewer's question (multi-line, at most MaxMessageLength
// characters, named "reply"), the message of the resubmission step; it is
// accepted only from INFO_REQUESTED, and refused otherwise (INVALID on
// reply), changing nothing. Each step keeps the answers it left, so
// reviewers see what changed; a last submission step recorded without
// answers (before steps kept them) first takes the answers as they stand.
func (s *Service) Update(ctx context.Context, viewer *auth.Viewer, id int64, in Input, reply *string) (*models.ProviderApplication, error) {
	reply = trimmed(reply)
	if err := normalizeWithReply(&in, reply); err != nil {
		return nil, err
	}
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		app, err := s.loadForChange(ctx, tx, id)
		if err != nil {
			return err
		}
		if app.UserID != viewer.User.ID {
			// Another user's application does not exist for this viewer:
			// the same answer as an unknown id (issue 9 point 9).
			return fault.E(fault.NotFound, "no such application")
		}
		if !app.Status.IsOpen() {
			return invalidState(app.Status, "edited")
		}
		resubmitting := app.Status == models.ApplicationInfoRequested
		if reply != nil && !resubmitting {
			// A reply answers the reviewer's question; with none asked it
			// would replace the reply that answered the last one.
			return &fault.Validation{Problems: []fault.Problem{{Field: "reply", Code: fault.InvalidValue,
				Message: "a reply answers a reviewer's request for more information, and this application is not awaiting one: send the answers without a reply"}}}
		}
		if resubmitting && app.Resubmissions >= s.cfg.MaxResubmissions {
			return &fault.Validation{Problems: []fault.Problem{{Field: "id", Code: fault.TooMany,
				Message: fmt.Sprintf("this application was resubmitted %d times, the most allowed; a reviewer will decide on the answers given", s.cfg.MaxResubmissions)}}}
		}
		gpus, err := storedGpus(ctx, tx, app.ID)
		if err != nil {
			return err
		}
		if !resubmitting && unchanged(app, gpus, &in) {
			return nil
		}
		// The difference the reviewers read is counted from the last
		// submission step's answers: keep them on a step recorded before
		// steps kept answers.
		if err := s.keepSubmittedAnswers(ctx, tx, app, gpus); err != nil {
			return err
		}
		tier, reasons := SuggestTier(&in)
		applyInput(app, &in)
		app.Status = models.ApplicationSubmitted
		app.SuggestionTier, app.SuggestionReasons = tier, reasons
		app.UpdatedAt = s.deps.Clock.Now()
		if resubmitting {
			app.Resubmissions++
		}
		if _, err := tx.NewUpdate().Model(app).Column("full_name", "email", "company", "ups_protected", "commitment_months",
			"maintenance_notes", "status", "suggested_tier", "suggested_reasons", "updated_at", "resubmissions").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("onboarding: unable to update application: %w", err)
		}
		if _, err := tx.NewDelete().Model((*models.ApplicationGpu)(nil)).Where("application_id = ?", app.ID).Exec(ctx); err != nil {
			return fmt.Errorf("onboarding: unable to replace GPU entries: %w", err)
		}
		if err := s.insertGpus(ctx, tx, app, in.Gpus); err != nil {
			return err
		}
		s.announce(ctx, app.ID)
		answers := answersOf(app, gpuRows(app.ID, in.Gpus))
		if !resubmitting {
			return s.recordEdit(ctx, tx, app, viewer, answers)
		}
		if _, err := s.addSubmission(ctx, tx, app, viewer, models.ActionResubmitted, reply, answers); err != nil {
			return err
		}
		return s.notifyAdmins(ctx, tx, app, true)
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

func applyInput(app *models.ProviderApplication, in *Input) {
	app.FullName, app.Email, app.Company = in.FullName, in.Email, in.Company
	app.UpsProtected, app.CommitmentMonths, app.MaintenanceNotes = in.UpsProtected, in.CommitmentMonths, in.MaintenanceNotes
}

func (s *Service) insertGpus(ctx context.Context, tx bun.Tx, app *models.ProviderApplication, gpus []GPUInput) error {
	rows := gpuRows(app.ID, gpus)
	if _, err := tx.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("onboarding: unable to store GPU entries: %w", err)
	}
	return nil
}

// addEvent records a step of app's history and returns its id.
func (s *Service) addEvent(ctx context.Context, tx bun.IDB, app *models.ProviderApplication, actor *auth.Viewer, action models.ApplicationAction, message *string, tier *models.ProviderTier) (int64, error) {
	return s.insertEvent(ctx, tx, &models.ApplicationEvent{
		ApplicationID: app.ID, ActorUserID: actor.User.ID, ActorName: actor.User.Name, ActorIsAdmin: actor.IsAdmin(),
		Action: action, Message: message, Tier: tier, At: s.deps.Clock.Now(),
	})
}

// addSubmission records the applicant's submission or resubmission of
// app, with their reply (if any) and the answers it leaves, and returns
// the step's id.
func (s *Service) addSubmission(ctx context.Context, tx bun.IDB, app *models.ProviderApplication, actor *auth.Viewer, action models.ApplicationAction, reply *string, answers []models.ApplicationAnswer) (int64, error) {
	return s.insertEvent(ctx, tx, &models.ApplicationEvent{
		ApplicationID: app.ID, ActorUserID: actor.User.ID, ActorName: actor.User.Name, ActorIsAdmin: actor.IsAdmin(),
		Action: action, Message: reply, At: s.deps.Clock.Now(), Answers: answers,
	})
}

func (s *Service) insertEvent(ctx context.Context, tx bun.IDB, ev *models.ApplicationEvent) (int64, error) {
	if _, err := tx.NewInsert().Model(ev).Returning("id").Exec(ctx); err != nil {
		return 0, fmt.Errorf("onboarding: unable to record history: %w", err)
	}
	return ev.ID, nil
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
	fillChanges(app)
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
	fillChanges(app)
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
	fillChanges(apps...)
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

// StatusCount is how many applications are in one status.
type StatusCount struct {
	Status models.ApplicationStatus
	Count  int
}

// CountByStatus counts the applications in each status, for the review
// queue's filter tabs: every status, in review order (SUBMITTED,
// INFO_REQUESTED, APPROVED, REJECTED), zero where there are none. One
// query.
func (s *Service) CountByStatus(ctx context.Context) ([]StatusCount, error) {
	var rows []struct {
		Status models.ApplicationStatus `bun:"status"`
		N      int                      `bun:"n"`
	}
	if err := s.deps.DB.NewSelect().Model((*models.ProviderApplication)(nil)).
		ColumnExpr("pa.status AS status, COUNT(*) AS n").GroupExpr("pa.status").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("onboarding: unable to count applications: %w", err)
	}
	n := map[models.ApplicationStatus]int{}
	for _, r := range rows {
		n[r.Status] = r.N
	}
	out := make([]StatusCount, 0, 4)
	for _, st := range []models.ApplicationStatus{models.ApplicationSubmitted, models.ApplicationInfoRequested, models.ApplicationApproved, models.ApplicationRejected} {
		out = append(out, StatusCount{Status: st, Count: n[st]})
	}
	return out, nil
}
