package proxytest_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/proxytest"
)

// echo serves lines back on a loopback port until the test ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(t *testing.T, c net.Conn, line string) {
	t.Helper()
	_, err := c.Write([]byte(line + "\n"))
	require.NoError(t, err)
	got, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, line+"\n", got)
}

// A balancer in a process that ran out of file descriptors (the soak's,
// with thousands of agents and dashboards) must serve again once some
// are free: before, the first failed accept ended its accept loop for
// good, and every later connection waited forever while the ones already
// open kept working.
func TestTheProxyServesAgainAfterRunningOutOfFileDescriptors(t *testing.T) {
	p := proxytest.Start(t, echo(t))
	before, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer before.Close()
	roundTrip(t, before, "open before")

	var limit syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &limit))
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &limit) })
	// Use up every descriptor the (lowered) limit leaves.
	low := limit
	low.Cur = 256
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low))
	var hogs []*os.File
	release := func() {
		for _, f := range hogs {
			_ = f.Close()
		}
		hogs = nil
	}
	t.Cleanup(release)
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			break
		}
		hogs = append(hogs, f)
	}
	require.NotEmpty(t, hogs)
	// One free for the client: the kernel queues its connection, and the
	// proxy's accept fails for want of a descriptor.
	_ = hogs[len(hogs)-1].Close()
	hogs = hogs[:len(hogs)-1]
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	await.True(t, func() bool { return p.AcceptFailures() > 0 }, "the proxy never tried to accept")

	release()
	roundTrip(t, c, "accepted once descriptors were free")
	roundTrip(t, before, "the connection open before still works")
}

func TestMain(m *testing.M) {
	proxytest.Main()
	os.Exit(m.Run())
}

// openSockets counts this process's open sockets (io.Copy between two
// TCP connections splices through pipes it pools, so all descriptors
// would count those too).
func openSockets(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	n := 0
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(to, "socket:") {
			n++
		}
	}
	return n
}

// The soak's balancer runs in a process of its own so that its two
// descriptors per connection do not count against the harness's file
// limit (the full soak ran out of them at its rolling restart); it is
// cut and restored on command as the in-process proxy is.
func TestAProxyInAProcessOfItsOwnForwardsAndIsCutAndRestored(t *testing.T) {
	target := echo(t)
	p := proxytest.StartProcess(t, target)

	const n = 40
	before := openSockets(t)
	conns := make([]net.Conn, 0, n)
	for i := range n {
		c, err := net.Dial("tcp", p.Addr())
		require.NoError(t, err)
		conns = append(conns, c)
		roundTrip(t, c, fmt.Sprintf("line %d", i))
	}
	// Here: each client's end and the echo server's end of its proxied
	// connection; the proxy's two ends are the other process's.
	require.LessOrEqual(t, openSockets(t)-before, 2*n+4, "the proxy's descriptors are this process's")

	p.Cut(t)
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(time.Minute)) // a backstop only: a cut ends it at once
		_, err := bufio.NewReader(c).ReadString('\n')
		require.Error(t, err, "an open connection is dropped by the cut")
		_ = c.Close()
	}
	_, err := net.Dial("tcp", p.Addr())
	require.Error(t, err, "a cut proxy refuses new connections")

	p.Restore(t)
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	roundTrip(t, c, "served again after the restore")
}
