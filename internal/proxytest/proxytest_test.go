package proxytest_test

import (
	"bufio"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

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
