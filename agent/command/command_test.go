package command_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/command"
	"github.com/gpunex/gpunex/agent/job/watch"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
)

func TestRunBenchmarkIsHandedToTheRunnerAndNeverHoldsTheNextCommand(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan string, 4)
	runner := bench.NewRunner(func(ctx context.Context, p protocol.RunBenchmarkPayload) protocol.BenchmarkResultInput {
		started <- p.RunID
		<-release // a long benchmark
		return protocol.BenchmarkResultInput{RunID: p.RunID}
	}, func(context.Context, protocol.BenchmarkResultInput) error { return nil }, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); runner.Run(ctx) }()
	t.Cleanup(func() { close(release); cancel(); <-done })

	handle := command.Handler(func() *watch.Watcher { return nil }, func() *bench.Runner { return runner }, slog.New(slog.DiscardHandler))
	payload, err := json.Marshal(protocol.RunBenchmarkPayload{RunID: "run-1", Reason: protocol.BenchOnRegistration})
	require.NoError(t, err)
	cmd := client.Command{ID: "c-1", Kind: protocol.CommandRunBenchmark, Payload: payload}

	// The benchmark blocks until the test ends: handle returning at all
	// shows it starts the run and does not wait for it.
	require.NoError(t, handle(ctx, cmd))
	require.Equal(t, "run-1", await.Receive(t, started, "the benchmark never started"))
	require.NoError(t, handle(ctx, cmd), "a repeated command is dropped with a log line, not an error")
	require.ErrorContains(t, handle(ctx, client.Command{ID: "c-2", Kind: protocol.CommandRunBenchmark, Payload: json.RawMessage(`{"runId":`)}),
		"RUN_BENCHMARK payload")
}
