package fleet

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/models"
)

// Registered is what a registration told the fleet, for the services that
// act on it (the benchmark's first run, a run after a hardware change).
type Registered struct {
	MachineID, ProviderID int64
	// New is true the first time the machine registers.
	New bool
	// Hardware names the driver and the GPUs as registered; it differs
	// from an earlier registration's exactly when the driver or a GPU
	// changed.
	Hardware string
}

// OnRegistered adds fn to the functions called after each successful
// registration (after its transaction committed), in the order added.
// Call it while assembling the platform, before serving.
func (s *Service) OnRegistered(fn func(ctx context.Context, r Registered)) {
	s.onRegistered = append(s.onRegistered, fn)
}

// Transition is a machine's status change, as told to the functions added
// with OnTransition once it is committed.
type Transition struct {
	MachineID, ProviderID int64
	Status                protocol.MachineStatus
	// Reason says why an offline machine is offline; nil when online.
	Reason *models.OfflineReason
	// At is when the status changed (for the sweeper's offline, the end
	// of the grace after the last heartbeat).
	At time.Time
	// LastBeat is the latest heartbeat the platform received from the
	// machine (for an offline one, when it was last heard from: what a
	// rental on it is billed to).
	LastBeat time.Time
}

// OnTransition adds fn to the functions called after each machine status
// change (after its transaction committed, on the replica that made it,
// so once per change across replicas), in the order added. fn runs on the
// heartbeat's or the sweeper's goroutine: it must be quick. Call it while
// assembling the platform, before serving.
func (s *Service) OnTransition(fn func(ctx context.Context, t Transition)) {
	s.onTransition = append(s.onTransition, fn)
}

// hardwareOf fingerprints a machine's driver and current GPUs.
func hardwareOf(m *models.Machine) string {
	parts := make([]string, 0, len(m.Gpus)+1)
	if m.DriverVersion != nil {
		parts = append(parts, "driver="+*m.DriverVersion)
	}
	gpus := make([]string, 0, len(m.Gpus))
	for _, g := range m.Gpus {
		gpus = append(gpus, g.UUID+"="+g.Name)
	}
	slices.Sort(gpus)
	return strings.Join(append(parts, gpus...), ";")
}

// ResolveMachine returns the row id of agent's machine with machine id
// uid, resolved as a heartbeat's is (from memory after the first time;
// another provider's machine is answered as unknown).
func (s *Service) ResolveMachine(ctx context.Context, agent *auth.Agent, uid string) (int64, error) {
	ref, err := s.admission.resolve(ctx, agent, uid)
	if err != nil {
		return 0, err
	}
	return ref.id, nil
}
