package notification

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/cursor"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Notification kinds. The SPA translates each kind; Title and Body are the
// English text for API clients.
const (
	KindWelcome = "WELCOME"
)

// MaxPageSize bounds one page of notifications.
const MaxPageSize = 100

// replayLimit bounds how many missed notifications a subscription replays.
const replayLimit = 500

// Deps are what the notification service uses.
type Deps struct {
	DB *store.DB
	// Bus carries each notification to its user's subscriptions.
	Bus    bus.Bus
	Clock  clock.Clock
	Logger *slog.Logger
}

// Config tunes the notification service; it has nothing to tune yet.
type Config struct{}

// Service creates, lists and streams notifications.
type Service struct {
	deps Deps
	// live decodes each notification event once per replica for every
	// subscriber of its user (see Subscribe).
	live *bus.Shared[*models.Notification]
}

// New returns a notification service.
func New(deps Deps, _ Config) *Service {
	s := &Service{deps: deps}
	s.live = bus.NewShared(deps.Bus, deps.Logger, s.decode)
	return s
}

// Channel is the bus channel of userID's notifications.
func Channel(userID int64) string { return "user." + strconv.FormatInt(userID, 10) + ".notifications" }

// Add stores n through idb (join the caller's transaction by passing it) and
// publishes it once that transaction commits.
func (s *Service) Add(ctx context.Context, idb bun.IDB, n *models.Notification) error {
	if n.Params == nil {
		n.Params = map[string]string{}
	}
	n.CreatedAt = s.deps.Clock.Now()
	if _, err := idb.NewInsert().Model(n).Returning("id").Exec(ctx); err != nil {
		return fmt.Errorf("notify: unable to store notification: %w", err)
	}
	payload, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("notify: unable to encode notification: %w", err)
	}
	userID := n.UserID
	store.AfterCommit(ctx, func() {
		// The notification is stored; a failed publish only delays it until
		// the client's next replay, so it is logged, not returned.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := s.deps.Bus.Publish(pctx, Channel(userID), payload); err != nil {
			s.deps.Logger.WarnContext(ctx, "notify: unable to publish notification", "user_id", userID, "err", err)
		}
	})
	return nil
}

// Renew rewrites notification id of n.UserID, if it is still unread, with
// n's kind, title, body and params, dated now: news that supersedes what
// the user has not read yet takes its place rather than adding to the
// unread pile. It fills n with the renewed notification and reports
// whether there was one; when there was not (it was read, or it is gone)
// it changes nothing and the caller adds n instead.
//
// A renewed notification is not announced again: it keeps its id, which
// the user's subscriptions have delivered already, and an unread count
// that does not change; the next List shows the new text.
func (s *Service) Renew(ctx context.Context, idb bun.IDB, id int64, n *models.Notification) (bool, error) {
	if n.Params == nil {
		n.Params = map[string]string{}
	}
	n.ID, n.CreatedAt, n.ReadAt = id, s.deps.Clock.Now(), nil
	res, err := idb.NewUpdate().Model(n).Column("kind", "title", "body", "params", "created_at").
		Where("id = ? AND user_id = ? AND read_at IS NULL", id, n.UserID).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("notify: unable to renew notification: %w", err)
	}
	renewed, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("notify: unable to renew notification: %w", err)
	}
	if renewed == 0 {
		n.ID = 0
	}
	return renewed > 0, nil
}

// Welcome greets a new user; it is an auth.SignUpHook.
func (s *Service) Welcome(ctx context.Context, tx bun.Tx, u *models.User) error {
	return s.Add(ctx, tx, &models.Notification{
		UserID: u.ID,
		Kind:   KindWelcome,
		Title:  "Welcome to GPUnex",
		Body:   fmt.Sprintf("Hello %s, your account is ready. Rent GPUs on the marketplace, or apply to provide your own.", u.Name),
		Params: map[string]string{"name": u.Name},
	})
}

// Page is one page of a user's notifications, newest first.
type Page struct {
	Items       []*models.Notification
	HasNextPage bool
	UnreadCount int
}

// Cursor encodes an id as an opaque pagination cursor.
func Cursor(id int64) string { return cursor.Encode("notification", id) }

func parseCursor(c string) (int64, bool) { return cursor.Decode("notification", c) }

// List returns up to first notifications of userID older than the cursor.
func (s *Service) List(ctx context.Context, userID int64, first int, after string) (*Page, error) {
	if first < 1 || first > MaxPageSize {
		return nil, fault.E(fault.Invalid, "first must be between 1 and %d", MaxPageSize)
	}
	q := s.deps.DB.NewSelect().Model((*models.Notification)(nil)).Where("user_id = ?", userID).OrderExpr("id DESC").Limit(int64(first + 1))
	if after != "" {
		id, ok := parseCursor(after)
		if !ok {
			return nil, fault.E(fault.Invalid, "after is not a valid cursor")
		}
		q = q.Where("id < ?", id)
	}
	var items []*models.Notification
	if err := q.Scan(ctx, &items); err != nil {
		return nil, fmt.Errorf("notify: unable to list notifications: %w", err)
	}
	page := &Page{Items: items}
	if len(items) > first {
		page.Items, page.HasNextPage = items[:first], true
	}
	n, err := s.UnreadCount(ctx, userID)
	if err != nil {
		return nil, err
	}
	page.UnreadCount = n
	return page, nil
}

// UnreadCount counts userID's unread notifications.
func (s *Service) UnreadCount(ctx context.Context, userID int64) (int, error) {
	n, err := s.deps.DB.NewSelect().Model((*models.Notification)(nil)).Where("user_id = ? AND read_at IS NULL", userID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("notify: unable to count notifications: %w", err)
	}
	return int(n), nil
}

// MarkRead marks userID's notifications with ids read (all of them when ids
// is nil) and returns how many changed. Ids of other users are ignored.
func (s *Service) MarkRead(ctx context.Context, userID int64, ids []int64) (int, error) {
	q := s.deps.DB.NewUpdate().Model((*models.Notification)(nil)).
		Set("read_at = ?", s.deps.Clock.Now()).
		Where("user_id = ? AND read_at IS NULL", userID)
	if ids != nil {
		if len(ids) == 0 {
			return 0, nil
		}
		if len(ids) > MaxPageSize {
			return 0, &fault.Validation{Problems: []fault.Problem{{Field: "ids", Code: fault.TooMany, Message: fmt.Sprintf("at most %d ids at once", MaxPageSize)}}}
		}
		q = q.Where("id IN (?)", bun.List(ids))
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("notify: unable to mark notifications read: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ReplayAll as Subscribe's afterID replays every stored notification (up
// to the replay limit), for a client that knows none yet.
const ReplayAll = -1

// Subscribe streams userID's new notifications until ctx ends. With
// afterID > 0 (or ReplayAll) it first replays stored notifications newer
// than afterID, in
// order, then continues live without duplicates. The channel closes when
// ctx ends, or early when the subscriber fell behind (resubscribe with the
// last id seen to catch up).
func (s *Service) Subscribe(ctx context.Context, userID, afterID int64) (<-chan *models.Notification, error) {
	// Only a replayed notification can arrive twice: each is announced
	// once, and this subscription may have read it from the backlog too.
	// Live ids are not compared with the newest sent: transactions commit,
	// and announce, out of id order, so an older id may come later and is
	// still new to the subscriber.
	replayed := map[int64]bool{}
	backlog := func(ctx context.Context) ([]*models.Notification, error) {
		if afterID <= 0 && afterID != ReplayAll {
			return nil, nil
		}
		var ns []*models.Notification
		err := s.deps.DB.NewSelect().Model(&ns).Where("user_id = ? AND id > ?", userID, afterID).
			OrderExpr("id ASC").Limit(int64(replayLimit)).Scan(ctx)
		if err != nil {
			return nil, fmt.Errorf("notify: unable to replay notifications: %w", err)
		}
		for _, n := range ns {
			replayed[n.ID] = true
		}
		return ns, nil
	}
	keep := func(n *models.Notification) bool {
		if n.UserID != userID {
			return false
		}
		if replayed[n.ID] {
			delete(replayed, n.ID)
			return false
		}
		return true
	}
	return s.live.Follow(ctx, Channel(userID), backlog, keep)
}

// decode reads a notification event, once per replica for every
// subscriber of the user.
func (s *Service) decode(ctx context.Context, m bus.Message) (*models.Notification, bool) {
	n := new(models.Notification)
	if err := json.Unmarshal(m.Payload, n); err != nil {
		s.deps.Logger.WarnContext(ctx, "notify: dropping malformed event", "channel", m.Channel)
		return nil, false
	}
	return n, true
}
