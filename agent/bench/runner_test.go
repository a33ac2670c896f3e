package bench_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
)

func TestRunnerRunsOneAtATimeQueuesTheNextAndDropsDuplicates(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var mu sync.Mutex
	var ran, submitted []string
	run := func(ctx context.Context, p protocol.RunBenchmarkPayload) protocol.BenchmarkResultInput {
		mu.Lock()
		ran = append(ran, p.RunID)
		mu.Unlock()
		if p.RunID == "r1" {
			<-release // a long run
		}
		return protocol.BenchmarkResultInput{RunID: p.RunID}
	}
	submit := func(_ context.Context, res protocol.BenchmarkResultInput) error {
		mu.Lock()
		submitted = append(submitted, res.RunID)
		mu.Unlock()
		return nil
	}
	r := bench.NewRunner(run, submit, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	require.NoError(t, r.Enqueue(protocol.RunBenchmarkPayload{RunID: "r1"}), "Enqueue returns at once")
	await.True(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(ran) == 1 })
	require.ErrorIs(t, r.Enqueue(protocol.RunBenchmarkPayload{RunID: "r1"}), bench.ErrDuplicateRun, "running")
	require.NoError(t, r.Enqueue(protocol.RunBenchmarkPayload{RunID: "r2"}))
	require.ErrorIs(t, r.Enqueue(protocol.RunBenchmarkPayload{RunID: "r2"}), bench.ErrDuplicateRun, "waiting")
	for _, id := range []string{"r3", "r4", "r5"} {
		require.NoError(t, r.Enqueue(protocol.RunBenchmarkPayload{RunID: id}))
	}
	require.ErrorIs(t, r.Enqueue(protocol.RunBenchmarkPayload{RunID: "r6"}), bench.ErrQueueFull)
	require.Error(t, r.Enqueue(protocol.RunBenchmarkPayload{}), "a run id is required")
	mu.Lock()
	require.Equal(t, []string{"r1"}, ran, "one at a time")
	mu.Unlock()

	close(release)
	want := []string{"r1", "r2", "r3", "r4", "r5"}
	await.True(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(submitted) == len(want) })
	require.Equal(t, want, ran, "in the order they came")
	require.Equal(t, want, submitted)
}
