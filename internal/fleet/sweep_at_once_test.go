package fleet

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// barrierPresence holds each read of a machine's presence key until
// `want` such reads are waiting at once, then lets them all go: a sweep
// passes it only if it takes that many machines offline at the same time.
type barrierPresence struct {
	presence.Store
	want    int
	mu      sync.Mutex
	waiting int
	open    chan struct{}
}

func (p *barrierPresence) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if strings.HasPrefix(key, "machine:") {
		p.mu.Lock()
		if p.open != nil {
			p.waiting++
			if p.waiting == p.want {
				close(p.open)
			}
			open := p.open
			p.mu.Unlock()
			select {
			case <-open:
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
		} else {
			p.mu.Unlock()
		}
	}
	return p.Store.Get(ctx, key)
}

// The full soak cut a hundred machines off at once; the sweeper took them
// offline one transaction after the other and, on a saturated database,
// still showed 56 of them online after three times the grace. A sweep now
// takes silent machines offline sweepAtOnce at a time: here twelve go
// silent, and the sweep's reads of their keys meet at a barrier only
// sweepAtOnce reads waiting together open; every one is then offline.
func TestASweepTakesManySilentMachinesOfflineAtOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		clk := clock.NewManual(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		mem := presence.NewMemory(clk)
		t.Cleanup(func() { _ = mem.Close() })
		pres := &barrierPresence{Store: mem, want: sweepAtOnce}
		b := newBundle(t, db, clk, pres)
		ctx := context.Background()
		uids := []string{machineUID}
		for i := range 11 {
			uid := fmt.Sprintf("machine-silent-%02d", i)
			_, err := b.svc.Register(ctx, b.agent, protocol.RegisterMachineInput{MachineID: uid, Hostname: "h", AgentVersion: "1",
				Gpus: []protocol.GpuInventory{{UUID: "GPU-S" + uid, Name: "NVIDIA L4", Simulated: true}}})
			require.NoError(t, err)
			uids = append(uids, uid)
		}
		for _, uid := range uids {
			_, err := b.svc.Heartbeat(ctx, b.agent, protocol.HeartbeatInput{MachineID: uid})
			require.NoError(t, err)
		}
		_, _ = b.svc.Sweep(ctx) // the first sweep only starts trusting presence
		clk.Advance(31 * time.Second)

		pres.mu.Lock()
		pres.open = make(chan struct{})
		pres.mu.Unlock()
		done := make(chan error, 1)
		var n int
		go func() {
			var err error
			n, err = b.svc.Sweep(ctx)
			done <- err
		}()
		require.NoError(t, await.Receive(t, done, "the sweep, whose reads wait for %d at once", sweepAtOnce))
		require.Equal(t, len(uids), n, "every silent machine taken offline")
		var offline int
		require.NoError(t, db.NewRaw("SELECT COUNT(*) FROM machines WHERE status = ?", protocol.MachineOffline).Scan(ctx, &offline))
		require.Equal(t, len(uids), offline)
	})
}
