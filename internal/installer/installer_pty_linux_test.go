package installer_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// openPTY opens a pseudo-terminal pair with plain syscalls (Linux).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), req, uintptr(arg)); errno != 0 {
			return errno
		}
		return nil
	}
	var unlock int32
	require.NoError(t, ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)))
	var n uint32
	require.NoError(t, ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n)))
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	return m, s
}

// terminal collects what the script writes to its terminal.
type terminal struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

func (tt *terminal) String() string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.buf.String()
}

// waitFor waits until the terminal shows s.
func (tt *terminal) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(tt.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows:\n%s", s, tt.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runOnTerminal runs the installer as `curl ... | sh` from a provider's
// terminal: the script on stdin, the pseudo-terminal as the controlling
// terminal. When the prompt shows, typed is written to the terminal.
func runOnTerminal(t *testing.T, h *host, typed string, env ...string) (result, string) {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := h.command(t, ctx, "sh", true, env...)
	cmd.ExtraFiles = []*os.File{slave} // fd 3 in the child
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	require.NoError(t, slave.Close())

	tty := &terminal{done: make(chan struct{})}
	go func() {
		defer close(tty.done)
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			tty.mu.Lock()
			tty.buf.Write(b[:n])
			tty.mu.Unlock()
			if err != nil { // EIO once the last holder of the terminal exits
				return
			}
		}
	}()

	tty.waitFor(t, "input is hidden): ")
	_, err := master.Write([]byte(typed + "\n"))
	require.NoError(t, err)
	err = cmd.Wait()
	require.NoError(t, ctx.Err(), "the installer did not finish")
	select {
	case <-tty.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal did not close")
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		require.NoError(t, err)
	}
	r := h.finish(t, cmd, &stdout, &stderr, err)
	t.Logf("terminal:\n%s", tty.String())
	return r, tty.String()
}

func TestInstallPromptsForTokenOnTerminal(t *testing.T) {
	script, server := fetchScript(t)
	h := newHost(t, script)
	token := newToken(t)

	r, tty := runOnTerminal(t, h, token)

	require.Equal(t, 0, r.code, r.output())
	require.Contains(t, tty, "Paste your agent token (gpx_a_...; input is hidden): ")
	require.NotContains(t, tty, token, "the typed token is not echoed")
	require.NotContains(t, r.output(), token)
	require.Equal(t, successCalls(h, testAgentImage), r.calls)
	requireConfig(t, h, server, token)
}

func TestInstallRefusesEmptyTokenFromTerminal(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)

	r, _ := runOnTerminal(t, h, "")

	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "The agent token is empty")
	requireNoAgentStarted(t, r)
	require.NoDirExists(t, h.configDir)
}

func TestInstallRefusesMalformedTokenFromTerminal(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)

	r, tty := runOnTerminal(t, h, "gpx_s_notAnAgentToken")

	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "That is not an agent token")
	require.NotContains(t, tty+r.output(), "notAnAgentToken")
	requireNoAgentStarted(t, r)
}
