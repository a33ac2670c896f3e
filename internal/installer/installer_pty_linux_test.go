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
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
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
	await.True(t, func() bool { return strings.Contains(tt.String(), s) }, "the terminal never showed %q; it shows:\n%s", s, await.Show(tt.String))
}

// echoOn reports whether the terminal shows what is typed: ECHO in the
// terminal's settings, read through the master side.
func echoOn(t *testing.T, master *os.File) bool {
	t.Helper()
	var tio syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&tio)))
	require.Zero(t, errno, "TCGETS")
	return tio.Lflag&syscall.ECHO != 0
}

// session is what a provider saw on the terminal.
type session struct {
	tty string
	// echoAtPrompt is whether the terminal echoed while the prompt waited
	// for the token; echoAfter, once the installer had exited.
	echoAtPrompt, echoAfter bool
}

// runOnTerminal runs the installer as `curl ... | sudo sh` from a
// provider's terminal: the script on stdin, the pseudo-terminal as the
// controlling terminal. When the prompt shows, typed and a line break are
// written to the terminal.
func runOnTerminal(t *testing.T, h *host, typed string, env ...string) (result, session) {
	t.Helper()
	return runOnTerminalWith(t, h, []byte(typed+"\n"), env...)
}

// runOnTerminalWith writes keys to the terminal when the prompt shows; nil
// keys means the installer must not prompt at all.
func runOnTerminalWith(t *testing.T, h *host, keys []byte, env ...string) (result, session) {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	require.True(t, echoOn(t, master), "a new terminal echoes")
	ctx, cancel := context.WithTimeout(context.Background(), await.Patience(t))
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

	var s session
	if keys != nil {
		tty.waitFor(t, "input is hidden): ")
		s.echoAtPrompt = echoOn(t, master)
		_, err := master.Write(keys)
		require.NoError(t, err)
	}
	err := cmd.Wait()
	require.NoError(t, ctx.Err(), "the installer did not finish")
	select {
	case <-tty.done:
	case <-await.Timeout(t):
		t.Fatal("the terminal did not close")
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		require.NoError(t, err)
	}
	r := h.finish(t, cmd, &stdout, &stderr, err)
	s.tty = tty.String()
	s.echoAfter = echoOn(t, master)
	t.Logf("terminal:\n%s", s.tty)
	return r, s
}

func TestInstallPromptsForTokenOnTerminal(t *testing.T) {
	script, server := fetchScript(t)
	h := newHost(t, script)
	token := newToken(t)

	r, s := runOnTerminal(t, h, token)

	require.Equal(t, 0, r.code, r.output())
	require.Contains(t, s.tty, "Paste your agent token (gpx_a_...; input is hidden): ", "the prompt is on the terminal")
	require.NotContains(t, r.output(), "Paste your agent token", "not on stdout or stderr, which may be a log")
	require.False(t, s.echoAtPrompt, "echo is off while the token is typed")
	require.True(t, s.echoAfter, "echo is back on once the installer is done")
	require.NotContains(t, s.tty, token, "the typed token is not echoed")
	requireTokenHidden(t, r, token)
	require.Contains(t, r.stdout, "token accepted (not shown)")
	require.Equal(t, successCalls(h, testAgentImage), r.calls)
	requireConfig(t, h, server, token)
}

func TestInstallRestoresEchoWhenInterruptedAtPrompt(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)

	r, s := runOnTerminalWith(t, h, []byte("gpx_a_half\x03")) // Ctrl-C halfway through pasting

	require.Equal(t, 130, r.code, "the installer stops, as for any Ctrl-C")
	require.False(t, s.echoAtPrompt)
	require.True(t, s.echoAfter, "Ctrl-C at the prompt leaves the terminal echoing")
	require.NotContains(t, s.tty, "gpx_a_half")
	requireNoAgentStarted(t, r)
	require.NoDirExists(t, h.configDir)
}

func TestInstallWithTokenFileDoesNotPrompt(t *testing.T) {
	script, server := fetchScript(t)
	h := newHost(t, script)
	token := newToken(t)
	h.args = []string{"--token-file", writeTokenFile(t, h, token+"\n")}

	r, s := runOnTerminalWith(t, h, nil)

	require.Equal(t, 0, r.code, r.output())
	require.NotContains(t, s.tty, "Paste your agent token")
	require.True(t, s.echoAfter)
	requireTokenHidden(t, r, token)
	requireConfig(t, h, server, token)
}

func TestInstallRefusesEmptyTokenFromTerminal(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)

	r, s := runOnTerminal(t, h, "")

	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "The agent token is empty")
	require.True(t, s.echoAfter)
	requireNoAgentStarted(t, r)
	require.NoDirExists(t, h.configDir)
}

func TestInstallRefusesMalformedTokenFromTerminal(t *testing.T) {
	script, _ := fetchScript(t)
	for _, tc := range []struct{ desc, typed, msg string }{
		{"a session token", "gpx_s_notAnAgentToken", "That is not an agent token"},
		{"a space inside", "gpx_a_notAn AgentToken", "The agent token is malformed"},
		{"a quote", "gpx_a_notAnAgentToken'", "The agent token is malformed"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			h := newHost(t, script)

			r, s := runOnTerminal(t, h, tc.typed)

			require.NotEqual(t, 0, r.code)
			require.Contains(t, r.stderr, tc.msg)
			require.NotContains(t, s.tty+r.output(), "notAn")
			require.True(t, s.echoAfter)
			requireNoAgentStarted(t, r)
			require.NoDirExists(t, h.configDir)
		})
	}
}
