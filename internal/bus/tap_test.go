package bus_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
)

// sink records what a Tap's follow hands it; full makes Deliver refuse
// (the follower fell behind), and End calls Stop, as the WebSocket layer
// does when it finishes a subscription.
type sink struct {
	tap   *bus.Tap
	mu    sync.Mutex
	seqs  []uint64
	vals  []string
	full  bool
	ended chan struct{}
}

func newSink() *sink {
	s := &sink{ended: make(chan struct{})}
	s.tap = &bus.Tap{
		Deliver: func(seq uint64, v any) bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.full {
				return false
			}
			s.seqs, s.vals = append(s.seqs, seq), append(s.vals, v.(string))
			return true
		},
		End: func() {
			s.tap.Stop()
			close(s.ended)
		},
	}
	return s
}

func (s *sink) got() ([]uint64, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]uint64(nil), s.seqs...), append([]string(nil), s.vals...)
}

// Issue 10: a follow under a sink holds no channel: its current state
// (sequence 0) and each event reach Deliver, every follower seeing an event
// under the same sequence; a feed runs an encoder on values it is handed;
// a follower that falls behind ends at once (its End may Stop without a
// deadlock) while the others go on; Stop ends a follow.
func TestATapTakesAFollowWithoutAChannel(t *testing.T) {
	t.Parallel()
	eachBus(t, func(t *testing.T, b bus.Bus) {
		shared := bus.NewShared(b, nil, payloads)
		a, c := newSink(), newSink()
		for i, s := range []*sink{a, c} {
			ch, err := shared.Follow(bus.WithTap(t.Context(), s.tap), "machines", numbers("current-"+string(rune('a'+i))), nil)
			require.NoError(t, err)
			_, open := <-ch
			require.False(t, open, "a sink's follow returns a closed channel")
			require.True(t, s.tap.Used())
		}
		require.NoError(t, b.Publish(t.Context(), "machines", []byte("one")))
		await.True(t, func() bool { _, v := c.got(); return len(v) == 2 })
		seqA, valA := a.got()
		seqC, valC := c.got()
		require.Equal(t, []string{"current-a", "one"}, valA)
		require.Equal(t, []string{"current-b", "one"}, valC)
		require.Zero(t, seqA[0], "the current state is sequence 0")
		require.NotZero(t, seqA[1])
		require.Equal(t, seqA[1], seqC[1], "one event, one sequence for every follower")

		// A feed: Follow subscribes to nothing and yields what Push hands.
		feed := &bus.Tap{}
		ch, err := shared.Follow(bus.WithTap(t.Context(), feed), "machines", func(context.Context) ([]string, error) {
			t.Fatal("a feed loads nothing")
			return nil, nil
		}, nil)
		require.NoError(t, err)
		require.True(t, feed.Push("encoded"))
		require.Equal(t, "encoded", <-ch)

		// a falls behind: it ends (its End stops it) and c goes on.
		a.mu.Lock()
		a.full = true
		a.mu.Unlock()
		require.NoError(t, b.Publish(t.Context(), "machines", []byte("two")))
		select {
		case <-a.ended:
		case <-await.Timeout(t):
			t.Fatal("a follower that fell behind did not end")
		}
		require.NoError(t, b.Publish(t.Context(), "machines", []byte("three")))
		await.True(t, func() bool { _, v := c.got(); return len(v) == 4 })
		_, valC = c.got()
		require.Equal(t, []string{"current-b", "one", "two", "three"}, valC)

		// Stop ends c: End runs once, and nothing more arrives.
		c.tap.Stop()
		select {
		case <-c.ended:
		case <-await.Timeout(t):
			t.Fatal("Stop did not end the follow")
		}
		require.NoError(t, b.Publish(t.Context(), "machines", []byte("four")))
		time.Sleep(50 * time.Millisecond)
		_, valC = c.got()
		require.Len(t, valC, 4)
	})
}
