// Package redistest gives tests their Redis: the URL of the shared test
// server, and private redis-server processes for tests that must restart
// Redis or inspect its clients without disturbing the shared one.
package redistest

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/porttest"
)

// EnvURL names the shared Redis server tests use.
const EnvURL = "GPUNEX_TEST_REDIS_URL"

// SharedURL returns the URL of the shared Redis server named by [EnvURL],
// or skips the test saying why. Tests that share it keep apart by key
// prefix.
func SharedURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		t.Skipf("redistest: %s is not set; Redis tests need it (make test sets it, for example redis://127.0.0.1:6379/0)", EnvURL)
	}
	return u
}

// Server is a private redis-server process without persistence, so a
// restart loses every key, as a production Redis without AOF does.
type Server struct {
	Port int
	Addr string
	dir  string
	cmd  *exec.Cmd
}

// Start runs redis-server on port (0 picks a free one) and stops it when
// the test ends. It skips the test if redis-server is not installed.
func Start(t testing.TB, port int) *Server {
	t.Helper()
	if port == 0 {
		port = FreePort(t)
	}
	s := &Server{Port: port, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: t.TempDir()}
	s.start(t)
	t.Cleanup(func() { s.Stop(t) })
	return s
}

func (s *Server) start(t testing.TB) {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not on PATH; install it to run the private Redis server tests")
	}
	s.cmd = exec.Command(path, "--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir, "--loglevel", "warning")
	require.NoError(t, s.cmd.Start())
	probe := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer probe.Close()
	require.Eventually(t, func() bool { return probe.Ping(t.Context()).Err() == nil },
		10*time.Second, 20*time.Millisecond, "redis-server on %s did not come up", s.Addr)
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// Stop kills the server and waits for it; stopping twice is harmless.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if s.cmd == nil || s.cmd.ProcessState != nil {
		return
	}
	require.NoError(t, s.cmd.Process.Kill())
	_ = s.cmd.Wait()
}

// Restart kills the server and starts a fresh one on the same port.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop(t)
	s.start(t)
}

// FreePort returns a loopback TCP port that was free a moment ago, below
// the kernel's ephemeral range (see porttest.Free), so a server restarted
// on it finds it free again.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := porttest.Free()
	require.NoError(t, err)
	return port
}
