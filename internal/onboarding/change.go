package onboarding

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// ChangesChannel is the bus channel on which every change of an
// application (a submission, a resubmission, a decision) is announced, by
// id, once its transaction commits. One channel for all applications:
// only admins watch them, and a watcher of one application filters by id.
const ChangesChannel = "onboarding.applications"

// watchOpenLimit bounds the current state that opens a watch of every
// application: the newest applications awaiting a decision, as many as a
// page of the review queue holds at most.
const watchOpenLimit = 100

// changeEvent is what ChangesChannel carries. Watchers load the
// application as it is when they send it, so the event names it only.
type changeEvent struct {
	ApplicationID int64 `json:"applicationId"`
}

// Change is one message of a watch: an application as it is now.
type Change struct {
	Application *models.ProviderApplication
	// Initial marks the current-state messages that open a watch.
	Initial bool
}

// announce publishes, once the transaction of ctx commits (and never on
// rollback), that application id changed. The change is stored by then, so
// a failed publish only delays what watchers see: it is logged, not
// returned.
func (s *Service) announce(ctx context.Context, id int64) {
	payload, _ := json.Marshal(changeEvent{ApplicationID: id}) // an int64 always encodes
	store.AfterCommit(ctx, func() {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := s.deps.Bus.Publish(pctx, ChangesChannel, payload); err != nil {
			s.deps.Logger.WarnContext(ctx, "onboarding: unable to announce a change", "application_id", id, "err", err)
		}
	})
}

// Watch streams applications as they change, for the admins' review pages.
// With id it sends that application as it is now (Initial), then again
// after each of its changes; NOT_FOUND if there is no such application.
// With id nil it sends the applications awaiting a decision (the newest
// 100) as they are now, then any application after each change.
//
// Each message is the application as it is when sent, so a burst of
// changes may show the latest state more than once. The channel closes when
// ctx ends, or early if the watcher falls behind; watching again sends the
// current state again, so nothing that matters is lost. Callers authorise:
// every application is visible here.
func (s *Service) Watch(ctx context.Context, id *int64) (<-chan *Change, error) {
	current := func(ctx context.Context) ([]*Change, error) {
		apps, err := s.watchState(ctx, id)
		if err != nil {
			return nil, err
		}
		changes := make([]*Change, len(apps))
		for i, app := range apps {
			changes[i] = &Change{Application: app, Initial: true}
		}
		return changes, nil
	}
	var keep func(*Change) bool
	if id != nil {
		keep = func(c *Change) bool { return c.Application.ID == *id }
	}
	return s.changes.Follow(ctx, ChangesChannel, current, keep)
}

// resolveChange loads the application a change message names, once per
// replica for every watcher.
func (s *Service) resolveChange(ctx context.Context, msg bus.Message) (*Change, bool) {
	var ev changeEvent
	if err := json.Unmarshal(msg.Payload, &ev); err != nil || ev.ApplicationID == 0 {
		s.deps.Logger.WarnContext(ctx, "onboarding: dropping malformed change event", "channel", msg.Channel)
		return nil, false
	}
	app, err := s.Get(ctx, ev.ApplicationID)
	if err != nil {
		if ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "onboarding: unable to load a changed application", "application_id", ev.ApplicationID, "err", err)
		}
		return nil, false
	}
	return &Change{Application: app}, true
}

// watchState is the current state that opens a watch: the one application,
// or the newest ones awaiting a decision.
func (s *Service) watchState(ctx context.Context, id *int64) ([]*models.ProviderApplication, error) {
	if id != nil {
		app, err := s.Get(ctx, *id)
		if err != nil {
			return nil, err
		}
		return []*models.ProviderApplication{app}, nil
	}
	var apps []*models.ProviderApplication
	err := withDetails(s.deps.DB.NewSelect().Model(&apps)).
		Where("pa.status IN (?)", bun.List([]models.ApplicationStatus{models.ApplicationSubmitted, models.ApplicationInfoRequested})).
		OrderExpr("pa.id DESC").Limit(watchOpenLimit).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("onboarding: unable to load applications awaiting a decision: %w", err)
	}
	fillChanges(apps...)
	return apps, nil
}
