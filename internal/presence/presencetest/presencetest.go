// Package presencetest is the conformance suite every [presence.Store]
// implementation passes. Each implementation's tests call [Exercise], so
// that what heartbeat handling relies on is written down once and checked
// against every backend.
package presencetest

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/presence"
)

const (
	// ttl is short so that a backend whose advance really sleeps (Redis)
	// keeps the suite fast, and long enough that a loaded machine does not
	// expire a key the suite expects to be present: every "still present"
	// check happens at most 2/3 of ttl after the Touch it depends on.
	ttl = 300 * time.Millisecond
	// long is a ttl that outlives any test.
	long = time.Minute
)

// Exercise runs the conformance suite. Every case runs in parallel with
// its own store: newStore returns a fresh, empty store and registers its
// cleanup with the t it is given; advance(t, d) makes d pass for the store
// that newStore returned for the same t (moving a fake clock, or sleeping).
func Exercise(t *testing.T, newStore func(t *testing.T) presence.Store, advance func(t *testing.T, d time.Duration)) {
	t.Helper()
	cases := []struct {
		name string
		run  func(t *testing.T, s presence.Store, advance func(time.Duration))
	}{
		{"reports appeared on the first Touch and not on a refresh", testAppeared},
		{"returns the value last touched", testValue},
		{"keeps its own copy of the value", testValueCopy},
		{"reports an unknown key as absent", testUnknown},
		{"expires a key after its ttl", testExpiry},
		{"extends the ttl on refresh", testRefresh},
		{"returns only the present keys from GetMany", testGetMany},
		{"reports from Remove whether the key was present", testRemove},
		{"reports appeared exactly once among 16 concurrent Touches", testConcurrentTouch},
		{"rejects a ttl that is not positive", testBadTTL},
		{"reports a reachable backend", testPing},
		{"refuses work after Close", testClose},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			tc.run(t, s, func(d time.Duration) { advance(t, d) })
		})
	}
}

func testAppeared(t *testing.T, s presence.Store, _ func(time.Duration)) {
	tests := []struct {
		name         string
		wantAppeared bool
	}{
		{"first heartbeat", true},
		{"second heartbeat", false},
		{"third heartbeat", false},
	}
	for _, tc := range tests {
		appeared, err := s.Touch(t.Context(), "machine-1", []byte(tc.name), ttl)
		require.NoError(t, err)
		require.Equal(t, tc.wantAppeared, appeared, tc.name)
	}
}

func testValue(t *testing.T, s presence.Store, _ func(time.Duration)) {
	tests := []struct {
		name  string
		value []byte
	}{
		{"text", []byte(`{"gpu_util":0.93}`)},
		{"binary with zero bytes", []byte{0, 1, 2, 0, 255}},
		{"replaced by a later heartbeat", []byte("newer")},
		{"empty", []byte{}},
	}
	for _, tc := range tests {
		_, err := s.Touch(t.Context(), "machine-1", tc.value, long)
		require.NoError(t, err)
		got, ok, err := s.Get(t.Context(), "machine-1")
		require.NoError(t, err)
		require.True(t, ok, tc.name)
		require.Equal(t, string(tc.value), string(got), tc.name)
	}
}

func testValueCopy(t *testing.T, s presence.Store, _ func(time.Duration)) {
	value := []byte("original")
	_, err := s.Touch(t.Context(), "machine-1", value, long)
	require.NoError(t, err)
	copy(value, "XXXXXXXX")

	got, _, err := s.Get(t.Context(), "machine-1")
	require.NoError(t, err)
	require.Equal(t, "original", string(got), "changing the touched slice changes nothing")
	copy(got, "YYYYYYYY")

	got, _, err = s.Get(t.Context(), "machine-1")
	require.NoError(t, err)
	require.Equal(t, "original", string(got), "changing a returned slice changes nothing")
}

func testUnknown(t *testing.T, s presence.Store, _ func(time.Duration)) {
	value, ok, err := s.Get(t.Context(), "never-touched")
	require.NoError(t, err)
	require.False(t, ok)
	require.Nil(t, value)
}

func testExpiry(t *testing.T, s presence.Store, advance func(time.Duration)) {
	_, err := s.Touch(t.Context(), "machine-1", []byte("up"), ttl)
	require.NoError(t, err)
	advance(ttl / 3)
	requirePresent(t, s, "machine-1", true)

	advance(ttl)
	requirePresent(t, s, "machine-1", false)
	values, err := s.GetMany(t.Context(), []string{"machine-1"})
	require.NoError(t, err)
	require.Empty(t, values)

	appeared, err := s.Touch(t.Context(), "machine-1", []byte("back"), ttl)
	require.NoError(t, err)
	require.True(t, appeared, "a key that expired appears again")
}

func testRefresh(t *testing.T, s presence.Store, advance func(time.Duration)) {
	_, err := s.Touch(t.Context(), "machine-1", []byte("up"), ttl)
	require.NoError(t, err)
	advance(2 * ttl / 3)
	appeared, err := s.Touch(t.Context(), "machine-1", []byte("still up"), ttl)
	require.NoError(t, err)
	require.False(t, appeared)

	advance(2 * ttl / 3)
	requirePresent(t, s, "machine-1", true)
	advance(ttl / 2)
	requirePresent(t, s, "machine-1", false)
}

func testGetMany(t *testing.T, s presence.Store, advance func(time.Duration)) {
	for key, ttl := range map[string]time.Duration{"up-1": long, "up-2": long, "expired": ttl} {
		_, err := s.Touch(t.Context(), key, []byte("value of "+key), ttl)
		require.NoError(t, err)
	}
	advance(2 * ttl)

	tests := []struct {
		name string
		keys []string
		want map[string][]byte
	}{
		{"mixed", []string{"up-1", "expired", "never-touched", "up-2"}, map[string][]byte{
			"up-1": []byte("value of up-1"),
			"up-2": []byte("value of up-2"),
		}},
		{"repeated key", []string{"up-1", "up-1"}, map[string][]byte{"up-1": []byte("value of up-1")}},
		{"only absent", []string{"expired", "never-touched"}, map[string][]byte{}},
		{"no keys", nil, map[string][]byte{}},
	}
	for _, tc := range tests {
		got, err := s.GetMany(t.Context(), tc.keys)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
}

func testRemove(t *testing.T, s presence.Store, _ func(time.Duration)) {
	_, err := s.Touch(t.Context(), "machine-1", []byte("up"), long)
	require.NoError(t, err)

	existed, err := s.Remove(t.Context(), "machine-1")
	require.NoError(t, err)
	require.True(t, existed)
	requirePresent(t, s, "machine-1", false)

	existed, err = s.Remove(t.Context(), "machine-1")
	require.NoError(t, err)
	require.False(t, existed, "removing twice")

	appeared, err := s.Touch(t.Context(), "machine-1", []byte("back"), long)
	require.NoError(t, err)
	require.True(t, appeared, "a removed key appears again")
}

func testConcurrentTouch(t *testing.T, s presence.Store, _ func(time.Duration)) {
	const goroutines, rounds = 16, 5
	for round := range rounds {
		key := "machine-" + strconv.Itoa(round)
		var appeared atomic.Int64
		start := make(chan struct{})
		errs := make(chan error, goroutines)
		var wg sync.WaitGroup
		for i := range goroutines {
			wg.Go(func() {
				<-start
				ok, err := s.Touch(context.Background(), key, []byte(strconv.Itoa(i)), long)
				if ok {
					appeared.Add(1)
				}
				errs <- err
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Equal(t, int64(1), appeared.Load(), "round %d", round)
	}
}

func testBadTTL(t *testing.T, s presence.Store, _ func(time.Duration)) {
	for _, ttl := range []time.Duration{0, -time.Second} {
		_, err := s.Touch(t.Context(), "machine-1", []byte("up"), ttl)
		require.Error(t, err, "ttl %s", ttl)
	}
	requirePresent(t, s, "machine-1", false)
}

func testPing(t *testing.T, s presence.Store, _ func(time.Duration)) {
	require.NoError(t, s.Ping(t.Context()))
}

func testClose(t *testing.T, s presence.Store, _ func(time.Duration)) {
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice is harmless")

	_, err := s.Touch(t.Context(), "machine-1", []byte("up"), long)
	require.ErrorIs(t, err, presence.ErrClosed)
	_, _, err = s.Get(t.Context(), "machine-1")
	require.ErrorIs(t, err, presence.ErrClosed)
	_, err = s.GetMany(t.Context(), []string{"machine-1"})
	require.ErrorIs(t, err, presence.ErrClosed)
	_, err = s.Remove(t.Context(), "machine-1")
	require.ErrorIs(t, err, presence.ErrClosed)
	require.ErrorIs(t, s.Ping(t.Context()), presence.ErrClosed)
}

func requirePresent(t *testing.T, s presence.Store, key string, want bool) {
	t.Helper()
	_, ok, err := s.Get(t.Context(), key)
	require.NoError(t, err)
	require.Equal(t, want, ok, "%s present", key)
}
