package fleet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// The notifications a refused registration sends, once per provider,
// machine id, reason and GPU: the provider is told what to do, the admins
// what happened (with the machine that holds the GPU, which the provider
// is not told when it is another provider's).
const (
	KindGpuTaken               = "fleet.gpu_taken"
	KindGpuTakenReview         = "fleet.gpu_taken_review"
	KindSimulatedRefused       = "fleet.simulated_refused"
	KindSimulatedRefusedReview = "fleet.simulated_refused_review"
)

// identityAttempts bounds how often Register runs its transaction again
// after losing a race for a GPU UUID (errIdentityRace).
const identityAttempts = 3

// errIdentityRace is a GPU row that met a unique index: another
// registration committed the same GPU after this one checked. Register
// runs again, and its check then sees the winner and answers as it would
// have if the two had come one after the other.
var errIdentityRace = errors.New("fleet: a GPU was registered concurrently")

// holder is the machine a GPU UUID is registered on.
type holder struct {
	UUID         string `bun:"uuid"`
	MachineID    int64  `bun:"machine_id"`
	MachineUID   string `bun:"machine_uid"`
	Hostname     string `bun:"hostname"`
	ProviderID   int64  `bun:"provider_id"`
	ProviderName string `bun:"provider_name"`
}

// gpusTaken refuses a registration naming GPUs that other machines hold,
// by each GPU's index in the registration.
type gpusTaken struct {
	agent   *auth.Agent
	holders map[int]holder
}

func (e *gpusTaken) Error() string { return "fleet: GPUs registered on other machines" }

// validation is the answer the agent gets: TAKEN at each GPU's uuid.
// Another provider's machine is not named.
func (e *gpusTaken) validation() error {
	var v fault.Validation
	for _, i := range slices.Sorted(maps.Keys(e.holders)) {
		h := e.holders[i]
		msg := "this GPU is registered on another provider's machine: a GPU UUID is one GPU across GPUnex"
		if h.ProviderID == e.agent.ProviderID {
			msg = fmt.Sprintf("this GPU is registered on your machine %s (%s): a GPU UUID is one GPU across GPUnex; "+
				"if the card moved, restart that machine's agent without it first", h.Hostname, h.MachineUID)
		}
		v.Add(gpusPath.Index(i).Field("uuid").String(), fault.Taken, msg)
	}
	return v.Err()
}

// holdersOf returns the machines other than machineID (0 for a machine
// not registered yet) that hold, not removed, any of gpus, by the GPU's
// index in gpus. The unique index on live UUIDs serves the lookup.
func holdersOf(ctx context.Context, idb bun.IDB, machineID int64, gpus []protocol.GpuInventory) (map[int]holder, error) {
	if len(gpus) == 0 {
		return nil, nil
	}
	uuids := make([]string, len(gpus))
	for i, g := range gpus {
		uuids[i] = g.UUID
	}
	var rows []holder
	if err := idb.NewSelect().TableExpr("machine_gpus AS mg").
		ColumnExpr("mg.uuid, mg.machine_id, m.machine_uid, m.hostname, m.provider_id, p.name AS provider_name").
		Join("JOIN machines AS m ON m.id = mg.machine_id").
		Join("JOIN providers AS p ON p.id = m.provider_id").
		Where("mg.uuid IN (?) AND mg.removed_at IS NULL AND mg.machine_id <> ?", bun.List(uuids), machineID).
		Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("fleet: unable to look up GPU identities: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	byUUID := make(map[string]holder, len(rows))
	for _, r := range rows {
		byUUID[r.UUID] = r
	}
	out := make(map[int]holder, len(rows))
	for i, g := range gpus {
		if h, ok := byUUID[g.UUID]; ok {
			out[i] = h
		}
	}
	return out, nil
}

// refusal is one thing a registration was refused for, as kept and told.
type refusal struct {
	reason models.RefusalReason
	// uuid is the GPU refused; empty for the whole machine.
	uuid   string
	holder *holder
}

// refusals lists what e refuses, one per GPU in the registration's order.
func (e *gpusTaken) refusals() []refusal {
	out := make([]refusal, 0, len(e.holders))
	for _, i := range slices.Sorted(maps.Keys(e.holders)) {
		h := e.holders[i]
		out = append(out, refusal{reason: models.RefusalGpuTaken, uuid: h.UUID, holder: &h})
	}
	return out
}

// onlySimulated reports whether every problem of a registration's
// validation is a simulated GPU: the agent's claim is then what was
// refused, and it is kept and told (a registration malformed otherwise
// is only answered).
func onlySimulated(err error) bool {
	v, ok := fault.AsValidation(err)
	if !ok || len(v.Problems) == 0 {
		return false
	}
	for _, p := range v.Problems {
		if p.Code != fault.InvalidValue || !strings.HasPrefix(p.Field, "input.gpus.") || !strings.HasSuffix(p.Field, ".simulated") {
			return false
		}
	}
	return true
}

// tell keeps each of refusals of in, by agent, that was not kept before,
// and notifies the provider's user and every admin of it in the same
// transaction, so a retrying agent tells them once. It never changes the
// registration's answer: a failure here is logged.
func (s *Service) tell(ctx context.Context, agent *auth.Agent, in *protocol.RegisterMachineInput, refusals []refusal) {
	if err := s.keepRefusals(ctx, agent, in, refusals); err != nil {
		s.deps.Logger.ErrorContext(ctx, "fleet: unable to keep a refused registration", "provider_id", agent.ProviderID,
			"machine_uid", in.MachineID, "err", err)
	}
}

func (s *Service) keepRefusals(ctx context.Context, agent *auth.Agent, in *protocol.RegisterMachineInput, refusals []refusal) error {
	// Most refused registrations are an agent retrying: one read finds
	// them all kept and nothing is written.
	var kept []models.RegistrationRefusal
	if err := s.deps.DB.NewSelect().Model(&kept).Column("reason", "gpu_uuid").
		Where("provider_id = ? AND machine_uid = ?", agent.ProviderID, in.MachineID).Scan(ctx); err != nil {
		return fmt.Errorf("fleet: unable to read refused registrations: %w", err)
	}
	type key struct {
		reason models.RefusalReason
		uuid   string
	}
	known := make(map[key]bool, len(kept))
	for _, k := range kept {
		known[key{k.Reason, k.GpuUUID}] = true
	}
	fresh := refusals[:0:0]
	for _, r := range refusals {
		if !known[key{r.reason, r.uuid}] {
			fresh = append(fresh, r)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	now := s.deps.Clock.Now()
	return s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var provider models.Provider
		if err := tx.NewSelect().Model(&provider).Column("id", "user_id", "name").Where("id = ?", agent.ProviderID).Scan(ctx); err != nil {
			return fmt.Errorf("fleet: unable to read the provider: %w", err)
		}
		var admins []int64
		if s.deps.Notify != nil {
			if err := tx.NewSelect().Model((*models.UserRole)(nil)).Column("user_id").Where("role = ?", models.RoleAdmin).
				Scan(ctx, &admins); err != nil {
				return fmt.Errorf("fleet: unable to list admins: %w", err)
			}
		}
		for _, r := range fresh {
			row := &models.RegistrationRefusal{ProviderID: agent.ProviderID, MachineUID: in.MachineID, Hostname: in.Hostname,
				Reason: r.reason, GpuUUID: r.uuid, At: now}
			if r.holder != nil {
				id := r.holder.MachineID
				row.HolderMachineID = &id
			}
			res, err := tx.NewInsert().Model(row).On("CONFLICT DO NOTHING").Exec(ctx)
			if err != nil {
				return fmt.Errorf("fleet: unable to keep a refused registration: %w", err)
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				// Kept by a concurrent refusal, which told them.
				continue
			}
			s.deps.Logger.WarnContext(ctx, "fleet: registration refused", "reason", r.reason, "provider_id", agent.ProviderID,
				"machine_uid", in.MachineID, "gpu_uuid", r.uuid)
			if s.deps.Notify == nil {
				continue
			}
			for _, n := range refusalNotices(&provider, in, r, admins) {
				if err := s.deps.Notify.Add(ctx, tx, n); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// refusalNotices are the notifications of refusal r: the provider's and
// one per admin.
func refusalNotices(p *models.Provider, in *protocol.RegisterMachineInput, r refusal, admins []int64) []*models.Notification {
	params := map[string]string{"providerId": strconv.FormatInt(p.ID, 10), "provider": p.Name,
		"machineUid": in.MachineID, "hostname": in.Hostname}
	review := map[string]string{}
	var own, admin models.Notification
	switch r.reason {
	case models.RefusalGpuTaken:
		params["uuid"] = r.uuid
		own = models.Notification{Kind: KindGpuTaken,
			Title: fmt.Sprintf("GPU refused on %s", in.Hostname),
			Body: fmt.Sprintf("GPU %s is already registered on another machine, so the registration of %s was refused and nothing changed. "+
				"A GPU is one GPU across GPUnex: if you moved the card, restart the agent of the machine it left first, so that machine no longer reports it.",
				r.uuid, in.Hostname)}
		review["holderMachineUid"], review["holderHostname"] = r.holder.MachineUID, r.holder.Hostname
		review["holderProviderId"], review["holderProvider"] = strconv.FormatInt(r.holder.ProviderID, 10), r.holder.ProviderName
		admin = models.Notification{Kind: KindGpuTakenReview,
			Title: "A GPU was registered on two machines",
			Body: fmt.Sprintf("%s's machine %s reported GPU %s, which is registered on %s of %s. The registration was refused.",
				p.Name, in.Hostname, r.uuid, r.holder.Hostname, r.holder.ProviderName)}
	case models.RefusalSimulated:
		own = models.Notification{Kind: KindSimulatedRefused,
			Title: fmt.Sprintf("Simulated GPUs refused on %s", in.Hostname),
			Body: fmt.Sprintf("The agent on %s reported simulated GPUs (--simulate). GPUnex lists real hardware only, so the registration was refused "+
				"and nothing changed: run the agent without --simulate on the machine with the GPUs.", in.Hostname)}
		admin = models.Notification{Kind: KindSimulatedRefusedReview,
			Title: "A provider's agent reported simulated GPUs",
			Body:  fmt.Sprintf("%s's machine %s registered with simulated GPUs. The registration was refused.", p.Name, in.Hostname)}
	}
	own.UserID, own.Params = p.UserID, params
	out := []*models.Notification{&own}
	for _, id := range admins {
		n := admin
		n.UserID, n.Params = id, make(map[string]string, len(params)+len(review))
		for k, v := range params {
			n.Params[k] = v
		}
		for k, v := range review {
			n.Params[k] = v
		}
		out = append(out, &n)
	}
	return out
}
