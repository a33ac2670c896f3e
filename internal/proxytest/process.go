package proxytest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// targetsEnv names the targets of a proxy that runs as a process of its
// own: the test binary started again by StartProcess, which Main turns
// into that proxy.
const targetsEnv = "GPUNEX_PROXYTEST_TARGETS"

// Main serves as the proxy of StartProcess and exits when this process
// was started as one; otherwise it returns at once. A package that calls
// StartProcess calls Main first in its TestMain.
func Main() {
	targets := os.Getenv(targetsEnv)
	if targets == "" {
		return
	}
	os.Exit(serveCommands(strings.Split(targets, ","), os.Stdin, os.Stdout))
}

// serveCommands runs a proxy across targets, writes its address as the
// first line of out, then carries out each line of in ("cut", "restore"),
// answering "ok" or "error: …", until in ends.
func serveCommands(targets []string, in io.Reader, out io.Writer) int {
	p, err := listen(targets)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxytest:", err)
		return 1
	}
	defer p.close()
	fmt.Fprintln(out, p.Addr())
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		switch cmd := lines.Text(); cmd {
		case "cut":
			p.Cut()
		case "restore":
			err = p.restore()
		default:
			err = fmt.Errorf("unknown command %q", cmd)
		}
		if err != nil {
			fmt.Fprintln(out, "error:", err)
			err = nil
			continue
		}
		fmt.Fprintln(out, "ok")
	}
	return 0
}

// Remote is a proxy running in a process of its own, so that the two
// descriptors it holds per connection count against that process's file
// limit, not the test's: a load balancer in front of replicas that
// thousands of simulated clients reach, as an operator runs one. It is
// told to Cut and Restore as Proxy is.
type Remote struct {
	addr string
	cmd  *exec.Cmd
	mu   sync.Mutex // one command at a time
	in   io.WriteCloser
	out  *bufio.Reader
}

// StartProcess runs a proxy across targets in a process of its own (this
// test binary started again; its TestMain calls Main) and returns once it
// listens; the process ends when the test does, or with this one.
func StartProcess(t testing.TB, targets ...string) *Remote {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("proxytest: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), targetsEnv+"="+strings.Join(targets, ","))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("proxytest: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("proxytest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("proxytest: start %s: %v", exe, err)
	}
	r := &Remote{cmd: cmd, in: in, out: bufio.NewReader(stdout)}
	t.Cleanup(func() {
		_ = r.in.Close() // its commands end: it closes and exits
		_ = r.cmd.Wait()
	})
	line, err := r.out.ReadString('\n')
	r.addr = strings.TrimSpace(line)
	if _, _, splitErr := net.SplitHostPort(r.addr); err != nil || splitErr != nil {
		t.Fatalf("proxytest: the proxy process gave no address (%q, %v): does the package's TestMain call proxytest.Main?", line, err)
	}
	return r
}

// Addr is the proxy's host:port, the address clients dial.
func (r *Remote) Addr() string { return r.addr }

// Pid is the proxy process's id, for accounting what it costs.
func (r *Remote) Pid() int { return r.cmd.Process.Pid }

// Cut stops listening and drops every open connection (both sides), as
// Proxy.Cut.
func (r *Remote) Cut(t testing.TB) {
	t.Helper()
	r.command(t, "cut")
}

// Restore listens on the proxy's port again.
func (r *Remote) Restore(t testing.TB) {
	t.Helper()
	r.command(t, "restore")
}

// command sends cmd and waits until the process has carried it out.
func (r *Remote) command(t testing.TB, cmd string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := fmt.Fprintln(r.in, cmd); err != nil {
		t.Fatalf("proxytest: %s: %v", cmd, err)
	}
	answer, err := r.out.ReadString('\n')
	if err != nil {
		t.Fatalf("proxytest: %s: no answer: %v", cmd, err)
	}
	if answer = strings.TrimSpace(answer); answer != "ok" {
		t.Fatalf("proxytest: %s: %s", cmd, answer)
	}
}
