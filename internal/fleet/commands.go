package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// commandsChannel announces that a machine has commands waiting, so every
// replica knows to look (and only then) when its heartbeat arrives.
const commandsChannel = "fleet.commands"

// commandQueue holds commands for agents in SQL and delivers them with
// the next heartbeat on whichever replica receives it. Each replica keeps
// in memory the set of machines with commands waiting (told by the bus,
// reloaded from SQL after any gap: the bus ends a subscription that lost
// events, and listen reloads at each subscribe), so a heartbeat of a
// machine with none asks the database nothing.
type commandQueue struct {
	db     *store.DB
	bus    bus.Bus
	clock  clock.Clock
	logger *slog.Logger

	pending sync.Map // machine id -> struct{}
}

func newCommandQueue(deps Deps) *commandQueue {
	return &commandQueue{db: deps.DB, bus: deps.Bus, clock: deps.Clock, logger: deps.Logger}
}

// Enqueue queues a command for machine id's agent, delivered with its next
// heartbeat on whichever replica receives it.
func (s *Service) Enqueue(ctx context.Context, machineID int64, kind protocol.CommandKind, payload any) (*models.AgentCommand, error) {
	return s.commands.enqueue(ctx, machineID, kind, payload)
}

// EnqueueTx queues a command within tx, the transaction of ctx (the
// caller's store.InTx): it is stored, and so delivered, only if that
// transaction commits, and it is announced once it has.
func (s *Service) EnqueueTx(ctx context.Context, tx bun.IDB, machineID int64, kind protocol.CommandKind, payload any) (*models.AgentCommand, error) {
	return s.commands.enqueueOn(ctx, tx, machineID, kind, payload)
}

func (q *commandQueue) enqueue(ctx context.Context, machineID int64, kind protocol.CommandKind, payload any) (*models.AgentCommand, error) {
	return q.enqueueOn(ctx, q.db, machineID, kind, payload)
}

func (q *commandQueue) enqueueOn(ctx context.Context, db bun.IDB, machineID int64, kind protocol.CommandKind, payload any) (*models.AgentCommand, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("fleet: unable to encode command: %w", err)
	}
	cmd := &models.AgentCommand{MachineID: machineID, Kind: kind, Payload: string(b), CreatedAt: q.clock.Now()}
	if _, err := db.NewInsert().Model(cmd).Returning("id").Exec(ctx); err != nil {
		return nil, fmt.Errorf("fleet: unable to queue command: %w", err)
	}
	// Announced after the commit: a heartbeat that looked before it
	// would find nothing and forget that the machine has work waiting.
	store.AfterCommit(ctx, func() {
		q.pending.Store(machineID, struct{}{})
		if err := q.bus.Publish(context.WithoutCancel(ctx), commandsChannel, []byte(strconv.FormatInt(machineID, 10))); err != nil {
			q.logger.WarnContext(ctx, "fleet: unable to announce command", "machine_id", machineID, "err", err)
		}
	})
	return cmd, nil
}

// waiting reports whether machine id is known to have commands waiting.
func (q *commandQueue) waiting(machineID int64) bool {
	_, ok := q.pending.Load(machineID)
	return ok
}

// take returns machine id's undelivered commands, oldest first, and marks
// them delivered.
func (q *commandQueue) take(ctx context.Context, machineID int64) ([]*models.AgentCommand, error) {
	q.pending.Delete(machineID)
	var cmds []*models.AgentCommand
	err := q.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewSelect().Model(&cmds).Where("machine_id = ? AND delivered_at IS NULL", machineID).OrderExpr("id ASC").Scan(ctx); err != nil {
			return err
		}
		if len(cmds) == 0 {
			return nil
		}
		ids := make([]int64, len(cmds))
		for i, c := range cmds {
			ids[i] = c.ID
		}
		_, err := tx.NewUpdate().Model((*models.AgentCommand)(nil)).Set("delivered_at = ?", q.clock.Now()).
			Where("id IN (?) AND delivered_at IS NULL", bun.List(ids)).Exec(ctx)
		return err
	})
	if err != nil {
		q.pending.Store(machineID, struct{}{})
		return nil, fmt.Errorf("fleet: unable to deliver commands: %w", err)
	}
	return cmds, nil
}

// listen keeps the pending set up to date until ctx ends: it adds the
// machines other replicas announce and, after any gap, reloads the set
// from SQL.
func (q *commandQueue) listen(ctx context.Context) {
	bus.Listen(ctx, q.bus, commandsChannel, q.logger, func() { q.loadPending(ctx) }, func(m bus.Message) {
		if id, err := strconv.ParseInt(string(m.Payload), 10, 64); err == nil {
			q.pending.Store(id, struct{}{})
		}
	})
}

// loadPending remembers machines with undelivered commands.
func (q *commandQueue) loadPending(ctx context.Context) {
	var ids []int64
	if err := q.db.NewSelect().Model((*models.AgentCommand)(nil)).Column("machine_id").Distinct().
		Where("delivered_at IS NULL").Scan(ctx, &ids); err != nil {
		q.logger.WarnContext(ctx, "fleet: unable to load pending commands", "err", err)
		return
	}
	for _, id := range ids {
		q.pending.Store(id, struct{}{})
	}
}

// Withdraw removes machine id's commands of kind that were not delivered
// yet, so an agent that comes back after a long absence does not carry out
// work that no longer stands (a benchmark whose run expired). It returns
// how many were removed.
func (s *Service) Withdraw(ctx context.Context, machineID int64, kind protocol.CommandKind) (int, error) {
	res, err := s.deps.DB.NewDelete().Model((*models.AgentCommand)(nil)).
		Where("machine_id = ? AND kind = ? AND delivered_at IS NULL", machineID, kind).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("fleet: unable to withdraw commands: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
