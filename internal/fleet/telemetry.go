package fleet

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// maxSampled bounds the machines a sampler remembers; past it they are
// forgotten, which only lets each one's next sample through early.
const maxSampled = 100_000

// sampler picks, in this replica's memory, the heartbeats whose telemetry
// dashboards see: at most one per machine per every. A machine whose
// heartbeats land on several replicas may be sampled once on each; that
// bound is enough for a dashboard, and keeps the hot path free of shared
// state.
type sampler struct {
	every time.Duration

	mu   sync.Mutex
	last map[int64]time.Time // machine id -> when its telemetry was last shown
}

func newSampler(every time.Duration) *sampler {
	return &sampler{every: every, last: map[int64]time.Time{}}
}

// take reports whether machineID's beat at now is to be published: the
// first beat, or one every after the last shown. A taken beat is the
// last shown.
func (s *sampler) take(machineID int64, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if last, ok := s.last[machineID]; ok && now.Sub(last) < s.every {
		return false
	}
	s.remember(machineID, now)
	return true
}

// shown records that machineID's telemetry was shown at now by other
// means (the event of its transition online carries it).
func (s *sampler) shown(machineID int64, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remember(machineID, now)
}

// remember sets machineID's last sample; the caller holds s.mu.
func (s *sampler) remember(machineID int64, now time.Time) {
	if _, ok := s.last[machineID]; !ok && len(s.last) >= maxSampled {
		s.last = map[int64]time.Time{}
	}
	s.last[machineID] = now
}

// publishSample announces ref's telemetry (value, the beat as the
// presence store holds it) on its provider's channel, if the sampler takes
// it. A sample that cannot be published is only logged: the heartbeat
// has been recorded, and the next sample follows.
func (s *Service) publishSample(ctx context.Context, ref machineRef, value []byte, now time.Time) {
	if !s.samples.take(ref.id, now) {
		return
	}
	payload, err := json.Marshal(machineEvent{MachineID: ref.id, Beat: value})
	if err != nil {
		s.deps.Logger.WarnContext(ctx, "fleet: unable to encode telemetry sample", "machine_id", ref.id, "err", err)
		return
	}
	if err := s.deps.Bus.Publish(ctx, Channel(ref.providerID), payload); err != nil {
		s.deps.Logger.WarnContext(ctx, "fleet: unable to publish telemetry sample", "machine_id", ref.id, "err", err)
	}
}
