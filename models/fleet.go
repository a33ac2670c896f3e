package models

import (
	"io"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
)

// MachineEventKind says what a machineStatusChanged event is.
type MachineEventKind string

// The event kinds.
const (
	// MachineEventInitial is a machine's current state, sent for every
	// machine when a subscription starts (and again when it resumes).
	MachineEventInitial MachineEventKind = "INITIAL"
	// MachineEventStatus is a machine's state after a transition.
	MachineEventStatus MachineEventKind = "STATUS"
	// MachineEventTelemetry is an online machine's state with a sample of
	// its heartbeats' telemetry.
	MachineEventTelemetry MachineEventKind = "TELEMETRY"
)

var machineEventKinds = []MachineEventKind{MachineEventInitial, MachineEventStatus, MachineEventTelemetry}

// UnmarshalGQL reads the enum.
func (k *MachineEventKind) UnmarshalGQL(v any) (err error) {
	*k, err = unmarshalEnum(v, machineEventKinds, "MachineEventKind")
	return err
}

// MarshalGQL writes the enum.
func (k MachineEventKind) MarshalGQL(w io.Writer) { marshalEnum(w, k) }

// OfflineReason says why a machine is offline: planned downtime does not
// count against reliability, unplanned does.
type OfflineReason string

// The offline reasons.
const (
	OfflinePlanned   OfflineReason = "PLANNED"
	OfflineUnplanned OfflineReason = "UNPLANNED"
	OfflineNeverSeen OfflineReason = "NEVER_SEEN"
)

var offlineReasons = []OfflineReason{OfflinePlanned, OfflineUnplanned, OfflineNeverSeen}

// UnmarshalGQL reads the enum.
func (r *OfflineReason) UnmarshalGQL(v any) (err error) {
	*r, err = unmarshalEnum(v, offlineReasons, "OfflineReason")
	return err
}

// MarshalGQL writes the enum.
func (r OfflineReason) MarshalGQL(w io.Writer) { marshalEnum(w, r) }

// Machine is a provider's host running gpunex-agent. Status columns change
// only on transitions; the latest heartbeat of an online machine lives in
// the presence store. Simulated is true when any of its GPUs is simulated:
// such a machine is never listed outside the demo world.
type Machine struct {
	bun.BaseModel `bun:"table:machines,alias:m"`

	ID              int64                  `bun:"id,pk,autoincrement"`
	ProviderID      int64                  `bun:"provider_id,notnull"`
	MachineID       string                 `bun:"machine_uid,notnull"`
	Hostname        string                 `bun:"hostname,notnull"`
	AgentVersion    string                 `bun:"agent_version,notnull"`
	DriverVersion   *string                `bun:"driver_version"`
	CudaVersion     *string                `bun:"cuda_version"`
	Simulated       bool                   `bun:"simulated,notnull"`
	Status          protocol.MachineStatus `bun:"status,notnull"`
	OfflineReason   *OfflineReason         `bun:"offline_reason"`
	StatusChangedAt time.Time              `bun:"status_changed_at,notnull"`
	RegisteredAt    time.Time              `bun:"registered_at,notnull"`
	UpdatedAt       time.Time              `bun:"updated_at,notnull"`
	// AgentTokenID is the agent token of the machine's latest
	// registration (nil for machines registered before it was kept).
	AgentTokenID *int64 `bun:"agent_token_id"`
	// CPUModel, CPUCores, RAMBytes, DiskBytes and DiskFreeBytes are what
	// the agent said of its host at its latest registration
	// (protocol.HostFacts): the provider's claim, nil where not reported.
	CPUModel      *string  `bun:"cpu_model"`
	CPUCores      *int     `bun:"cpu_cores"`
	RAMBytes      *float64 `bun:"ram_bytes"`
	DiskBytes     *float64 `bun:"disk_bytes"`
	DiskFreeBytes *float64 `bun:"disk_free_bytes"`

	Gpus []*MachineGpu `bun:"rel:has-many,join:id=machine_id"`
	// LastHeartbeatAt is the latest heartbeat: read from the presence
	// store while the machine is online; the column keeps it, written with
	// each status transition, so an offline machine still tells when it
	// was last heard from.
	LastHeartbeatAt *time.Time `bun:"last_heartbeat_at"`
}

// MachineGpu is one GPU of a machine. A GPU that disappears from the
// inventory keeps its row with RemovedAt set. A UUID is one GPU across the
// platform: at most one row per UUID is not removed (a unique index), so a
// card is on one machine at a time and moves only after it has left the
// other one.
type MachineGpu struct {
	bun.BaseModel `bun:"table:machine_gpus,alias:mg"`

	ID          int64      `bun:"id,pk,autoincrement"`
	MachineID   int64      `bun:"machine_id,notnull"`
	UUID        string     `bun:"uuid,notnull"`
	Index       int        `bun:"idx,notnull"`
	Name        string     `bun:"name,notnull"`
	ModelKey    *string    `bun:"model_key"`
	VramBytes   *float64   `bun:"vram_bytes"`
	PciBusID    *string    `bun:"pci_bus_id"`
	PowerLimitW *float64   `bun:"power_limit_w"`
	Simulated   bool       `bun:"simulated,notnull"`
	AddedAt     time.Time  `bun:"added_at,notnull"`
	RemovedAt   *time.Time `bun:"removed_at"`

	// Standing is whether customers may rent the GPU (its benchmarks'
	// decision, gpu_bench_status; PENDING before the first) and Rented
	// whether a rental holds it now (gpu_allocations): read with the GPU
	// by the fleet's loads, for the provider's Overview.
	Standing GpuListing `bun:"listing,scanonly"`
	Rented   bool       `bun:"rented,scanonly"`

	// Telemetry is the latest sample, from the presence store.
	Telemetry *GpuTelemetry `bun:"-"`
}

// GpuTelemetry is one GPU's latest sample as the dashboard reads it: the
// agent's report (protocol.GpuTelemetry, the one definition of its fields)
// and the time of the beat that carried it.
type GpuTelemetry struct {
	protocol.GpuTelemetry
	// At is the beat's time (stored once per beat, not per GPU).
	At time.Time `json:"-"`
}

// MachineInventoryChange records a GPU appearing or disappearing.
type MachineInventoryChange struct {
	bun.BaseModel `bun:"table:machine_inventory_changes,alias:mic"`

	ID        int64     `bun:"id,pk,autoincrement"`
	MachineID int64     `bun:"machine_id,notnull"`
	At        time.Time `bun:"at,notnull"`
	Change    string    `bun:"change,notnull"`
	GpuUUID   string    `bun:"gpu_uuid,notnull"`
	Detail    string    `bun:"detail,notnull"`
}

// RefusalReason is why a registration was refused for what its agent
// claimed.
type RefusalReason string

// The refusal reasons.
const (
	// RefusalGpuTaken: a GPU UUID registered on another machine.
	RefusalGpuTaken RefusalReason = "GPU_TAKEN"
	// RefusalSimulated: simulated GPUs on a server of real hardware.
	RefusalSimulated RefusalReason = "SIMULATED"
)

// RegistrationRefusal is a registration refused for what its agent
// claimed, kept once per provider, machine id, reason and GPU: evidence
// for the admins, and what keeps a retrying agent from telling them again.
// The refused registration itself changed nothing.
type RegistrationRefusal struct {
	bun.BaseModel `bun:"table:registration_refusals,alias:rr"`

	ID         int64         `bun:"id,pk,autoincrement"`
	ProviderID int64         `bun:"provider_id,notnull"`
	MachineUID string        `bun:"machine_uid,notnull"`
	Hostname   string        `bun:"hostname,notnull"`
	Reason     RefusalReason `bun:"reason,notnull"`
	// GpuUUID is the GPU refused; empty when the refusal is the whole
	// machine's (simulated hardware).
	GpuUUID string `bun:"gpu_uuid,notnull"`
	// HolderMachineID is the machine the GPU is registered on, for
	// RefusalGpuTaken.
	HolderMachineID *int64    `bun:"holder_machine_id"`
	At              time.Time `bun:"at,notnull"`
}

// MachineStatusInterval is a span of one status: the facts uptime and the
// reliability score are computed from. LastSeenAt is advanced by periodic
// compaction while the interval is open.
type MachineStatusInterval struct {
	bun.BaseModel `bun:"table:machine_status_intervals,alias:msi"`

	ID         int64                  `bun:"id,pk,autoincrement"`
	MachineID  int64                  `bun:"machine_id,notnull"`
	Status     protocol.MachineStatus `bun:"status,notnull"`
	Reason     *OfflineReason         `bun:"reason"`
	StartedAt  time.Time              `bun:"started_at,notnull"`
	EndedAt    *time.Time             `bun:"ended_at"`
	LastSeenAt *time.Time             `bun:"last_seen_at"`
}

// AgentCommand is work queued for a machine's agent, delivered in a
// heartbeat response.
type AgentCommand struct {
	bun.BaseModel `bun:"table:agent_commands,alias:ac"`

	ID          int64                `bun:"id,pk,autoincrement"`
	MachineID   int64                `bun:"machine_id,notnull"`
	Kind        protocol.CommandKind `bun:"kind,notnull"`
	Payload     string               `bun:"payload,notnull"`
	CreatedAt   time.Time            `bun:"created_at,notnull"`
	DeliveredAt *time.Time           `bun:"delivered_at"`
}
