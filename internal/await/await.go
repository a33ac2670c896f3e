// Package await is how a test waits for what it expects on a machine of any
// speed. A wait lasts until its condition holds or until shortly before the
// test binary's own deadline (go test -timeout), never for a fixed number of
// seconds: a slow, busy machine makes a test slower, never red, and a thing
// that never happens still fails the test with its message before the binary
// is killed. It imports only the standard library, so the agent's tests and
// the server's use it alike (a shared leaf, internal/layering).
package await

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// Margin is kept before the test binary's deadline to report a failure and
// run the test's clean-ups.
const Margin = 30 * time.Second

// NoDeadline is the patience of a test run without a deadline (-timeout 0,
// or a benchmark).
const NoDeadline = 10 * time.Minute

// poll is the longest pause between two checks of a condition.
const poll = 100 * time.Millisecond

// deadliner is *testing.T's Deadline, which testing.TB lacks.
type deadliner interface {
	Deadline() (time.Time, bool)
}

// Patience returns how long a wait started now may last: until Margin
// before the test binary's deadline, at least one second.
func Patience(t testing.TB) time.Duration {
	if d, ok := t.(deadliner); ok {
		if at, ok := d.Deadline(); ok {
			return max(time.Until(at)-Margin, time.Second)
		}
	}
	return NoDeadline
}

// True waits until cond returns true, checking it at once and then every
// few milliseconds, up to every 100 ms. When the patience runs out it fails
// the test with msgAndArgs (a format and its arguments), or with a
// plain "the condition never held".
func True(t testing.TB, cond func() bool, msgAndArgs ...any) {
	t.Helper()
	deadline := time.Now().Add(Patience(t))
	pause := 5 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("await: after %s, %s", Patience(t)+time.Since(deadline), message(msgAndArgs))
		}
		timer := time.NewTimer(pause)
		select {
		case <-timer.C:
		case <-t.Context().Done():
			timer.Stop()
			t.Fatalf("await: the test ended first: %s", message(msgAndArgs))
		}
		pause = min(2*pause, poll)
	}
}

// Receive waits for a value from ch, as long as True would, and returns it;
// a closed channel or a lost patience fails the test with msgAndArgs.
func Receive[V any](t testing.TB, ch <-chan V, msgAndArgs ...any) V {
	t.Helper()
	timer := time.NewTimer(Patience(t))
	defer timer.Stop()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("await: the channel closed: %s", message(msgAndArgs))
		}
		return v
	case <-timer.C:
		t.Fatalf("await: nothing arrived: %s", message(msgAndArgs))
	}
	panic("unreachable")
}

// Timeout returns a channel that fires when the patience runs out, for a
// select that waits on several things:
//
//	select {
//	case v := <-ch:
//	case <-await.Timeout(t):
//		t.Fatal("nothing arrived")
//	}
func Timeout(t testing.TB) <-chan time.Time {
	return time.After(Patience(t))
}

// Goroutines waits until at most want goroutines run: a leak check after
// clients went away. The count is read on the caller's goroutine (testify's
// Eventually would add goroutines of its own); a failure lists every
// goroutine's stack after what.
func Goroutines(t testing.TB, want int, what string) {
	t.Helper()
	True(t, func() bool { return runtime.NumGoroutine() <= want }, "%s: wanted at most %d goroutines, now %s:\n%s",
		what, want, Show(func() string { return fmt.Sprint(runtime.NumGoroutine()) }), Show(stacks))
}

// stacks is every goroutine's stack.
func stacks() string {
	b := make([]byte, 1<<20)
	return string(b[:runtime.Stack(b, true)])
}

// Show is a message argument computed when the wait fails, so the failure
// shows the last state seen: await.True(t, cond, "rentals: %s",
// await.Show(func() string { return describe(last) })).
type Show func() string

// String calls s.
func (s Show) String() string { return s() }

func message(msgAndArgs []any) string {
	switch {
	case len(msgAndArgs) == 0:
		return "the condition never held"
	case len(msgAndArgs) == 1:
		return fmt.Sprint(msgAndArgs[0])
	}
	if format, ok := msgAndArgs[0].(string); ok {
		return fmt.Sprintf(format, msgAndArgs[1:]...)
	}
	return fmt.Sprint(msgAndArgs...)
}
