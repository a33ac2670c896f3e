package await_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
)

// due is a test whose binary must end at a given time.
type due struct {
	testing.TB
	at     time.Time
	failed chan string
}

func (d *due) Deadline() (time.Time, bool) { return d.at, true }
func (d *due) Helper()                     {}
func (d *due) Context() context.Context    { return context.Background() }
func (d *due) Fatalf(format string, a ...any) {
	d.failed <- fmt.Sprintf(format, a...)
	runtime.Goexit()
}

func TestPatienceLastsUntilTheMarginBeforeTheBinarysDeadline(t *testing.T) {
	t.Parallel()
	d := &due{TB: t, at: time.Now().Add(await.Margin + time.Minute)}
	require.InDelta(t, time.Minute.Seconds(), await.Patience(d).Seconds(), 1)

	d.at = time.Now() // past the margin already: one second still
	require.Equal(t, time.Second, await.Patience(d))
}

func TestTrueWaitsForTheConditionHowSlowSoEver(t *testing.T) {
	t.Parallel()
	var checks atomic.Int32
	go func() {
		for checks.Load() < 20 {
			runtime.Gosched()
		}
	}()
	await.True(t, func() bool { return checks.Add(1) >= 20 }, "twenty checks")
	require.EqualValues(t, 20, checks.Load(), "it returns as soon as the condition holds")
}

func TestTrueFailsWithTheTestsMessageWhenThePatienceRunsOut(t *testing.T) {
	t.Parallel()
	d := &due{TB: t, at: time.Now(), failed: make(chan string, 1)}
	go await.True(d, func() bool { return false }, "the %s never came", "listing")
	msg := await.Receive(t, d.failed, "the failure")
	require.Contains(t, msg, "the listing never came")
}

func TestReceiveReturnsTheValueAndFailsOnAClosedChannel(t *testing.T) {
	t.Parallel()
	ch := make(chan int, 1)
	ch <- 7
	require.Equal(t, 7, await.Receive(t, ch))

	d := &due{TB: t, at: time.Now().Add(time.Hour), failed: make(chan string, 1)}
	close(ch)
	go await.Receive(d, ch, "the answer")
	require.Contains(t, await.Receive(t, d.failed), "the channel closed: the answer")
}

func TestShowComputesTheMessageWhenTheWaitFails(t *testing.T) {
	t.Parallel()
	d := &due{TB: t, at: time.Now(), failed: make(chan string, 1)}
	var seen atomic.Int32
	go await.True(d, func() bool { seen.Add(1); return false }, "after %s checks",
		await.Show(func() string { return fmt.Sprint(seen.Load()) }))
	msg := await.Receive(t, d.failed, "the failure")
	require.NotContains(t, msg, "after 0 checks", "the message is the state at the failure, not at the call")
}
