package e2e_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds gpunex and gpunex-agent from this tree once per run.
func binaries(t testing.TB) (server, agent string) {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "gpunex-e2e-bin")
		if buildErr != nil {
			return
		}
		for _, b := range []string{"gpunex", "gpunex-agent"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, b), "../../cmd/"+b)
			cmd.Env = append(os.Environ(), "CGO_CFLAGS=-O2 -g -Wno-deprecated-declarations")
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", b, err, out)
				return
			}
		}
	})
	require.NoError(t, buildErr)
	return filepath.Join(binDir, "gpunex"), filepath.Join(binDir, "gpunex-agent")
}

// process is a running binary whose output is kept for failure reports.
type process struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out strings.Builder
	// copyTo, when set, gets a copy of everything written (see tee).
	copyTo io.Writer
	// exited is set once wait has reaped it.
	exited atomic.Bool
}

// wait reaps the process after it was signalled.
func (p *process) wait() {
	_ = p.cmd.Wait()
	p.exited.Store(true)
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.copyTo != nil {
		_, _ = p.copyTo.Write(b)
	}
	return p.out.Write(b)
}

// tee copies what the process writes from now on to w as well.
func (p *process) tee(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.copyTo = w
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func start(t testing.TB, name string, args ...string) *process {
	t.Helper()
	return startWithEnv(t, nil, name, args...)
}

// startWithEnv starts name with env added to this process's environment.
func startWithEnv(t testing.TB, env []string, name string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(name, args...)}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	// A test binary killed (its timeout, a cancelled CI) takes what it
	// started with it.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, p.cmd.Start())
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_, _ = p.cmd.Process.Wait()
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(name), p.output())
		}
	})
	return p
}

var urlPattern = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// serve starts gpunex serve and returns its URL.
func serve(t testing.TB, bin string, extra ...string) (*process, string) {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--demo", "--demo-agents=false",
		"--heartbeat-interval", "1s"}, extra...)
	p := start(t, bin, args...)
	var url string
	await.True(t, func() bool {
		url = urlPattern.FindString(p.output())
		return url != ""
	}, "the server did not start")
	return p, url
}

// statusKiB reads a memory line (VmRSS, VmHWM) of /proc/<pid>/status.
func statusKiB(t testing.TB, pid int, field string) int {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no %s", field)
	return 0
}

// cpuTime is the CPU time pid's threads have run, from each thread's
// schedstat (nanoseconds, where /proc/<pid>/stat counts 10 ms ticks).
func cpuTime(t testing.TB, pid int) time.Duration {
	t.Helper()
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	require.NoError(t, err)
	require.NotEmpty(t, stats)
	var total time.Duration
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that just ended
		}
		ns, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
		require.NoError(t, err)
		total += time.Duration(ns)
	}
	return total
}

// demoAgentToken signs in as the demo provider and makes an agent token.
func demoAgentToken(t testing.TB, srv *platformtest.Server) (*platformtest.Client, string) {
	t.Helper()
	provider := srv.NewAPIClient(t, "")
	var li struct{ LogIn struct{ Token *string } }
	provider.MustDo(&li, `mutation { logIn(input: {email: "provider@gpunex.demo", password: "gpunex-demo"}) { token } }`, nil)
	provider.Token = *li.LogIn.Token
	var ct struct{ CreateAgentToken struct{ Token string } }
	provider.MustDo(&ct, `mutation { createAgentToken(name: "e2e") { token } }`, nil)
	return provider, ct.CreateAgentToken.Token
}

func TestRealAgentProcessGoesOnlineAndOfflineOnADashboard(t *testing.T) {
	t.Parallel()
	serverBin, agentBin := binaries(t)
	for _, stack := range []string{"sqlite+memory", "postgres+redis"} {
		t.Run(stack, func(t *testing.T) {
			t.Parallel()
			var extra []string
			var rs *redistest.Server
			if stack == "postgres+redis" {
				rs = redistest.Start(t, 0)
				extra = []string{"--database-url", storetest.PostgresURL(t), "--redis-url", rs.URL(), "--redis-prefix", "e2e:"}
			}
			_, url := serve(t, serverBin, extra...)
			srv := &platformtest.Server{URL: url}

			provider, agentToken := demoAgentToken(t, srv)

			ws, _, err := srv.DialWS(t, nil)
			require.NoError(t, err)
			ws.Init(map[string]any{"authorization": "Bearer " + provider.Token})
			const dashboard = `subscription { machineStatusChanged { initial machine { hostname status offlineReason simulated gpus { uuid model { key } } } } }`
			ws.Subscribe("1", dashboard, nil)
			next := func(want string) string {
				t.Helper()
				for {
					m := ws.MustRead(30 * time.Second)
					if m.Type == "complete" && rs != nil {
						// The platform ends a subscription whose events a
						// Redis restart may have lost; the dashboard follows
						// again from the current state, as the SPA does.
						ws.Subscribe("1", dashboard, nil)
						continue
					}
					require.Equal(t, "next", m.Type, "%s", m.Payload)
					p := string(m.Payload)
					if strings.Contains(p, `"hostname":"e2e-host"`) && strings.Contains(p, `"status":"`+want+`"`) {
						return p
					}
				}
			}

			dataDir := t.TempDir()
			runAgent := func() *process {
				// The token in the environment, as the installer does: on the
				// command line every local user could read it.
				return startWithEnv(t, []string{"GPUNEX_TOKEN=" + agentToken}, agentBin, "--server", url, "--data-dir", dataDir,
					"--simulate", "8xH100", "--hostname", "e2e-host")
			}
			agent := runAgent()
			online := next("ONLINE")
			require.Contains(t, online, `"simulated":true`)
			require.Equal(t, 8, strings.Count(online, `"key":"H100_SXM_80GB"`))

			require.NotContains(t, agent.output(), agentToken, "the token never reaches the logs")

			if rs != nil {
				// A Redis restart does not take the machine offline.
				rs.Restart(t)
				time.Sleep(3 * time.Second)
				var mp struct {
					MyProvider struct {
						Machines []struct{ Hostname, Status string }
					}
				}
				provider.MustDo(&mp, `{ myProvider { machines { hostname status } } }`, nil)
				for _, m := range mp.MyProvider.Machines {
					if m.Hostname == "e2e-host" {
						require.Equal(t, "ONLINE", m.Status, "fleet state after a Redis restart")
					}
				}
			}

			// Killed without notice: offline (unplanned) after the grace period.
			require.NoError(t, agent.cmd.Process.Kill())
			_, _ = agent.cmd.Process.Wait()
			off := next("OFFLINE")
			require.Contains(t, off, `"offlineReason":"UNPLANNED"`)

			// Restarted, it keeps its machine identity; SIGTERM is a planned stop.
			agent = runAgent()
			next("ONLINE")
			require.NoError(t, agent.cmd.Process.Signal(syscall.SIGTERM))
			off = next("OFFLINE")
			require.Contains(t, off, `"offlineReason":"PLANNED"`)
			ctx, cancel := context.WithTimeout(context.Background(), await.Patience(t))
			defer cancel()
			waitErr := make(chan error, 1)
			go func() { waitErr <- agent.cmd.Wait() }()
			select {
			case err := <-waitErr:
				require.NoError(t, err, "the agent exits 0 after a planned stop")
			case <-ctx.Done():
				t.Fatal("the agent did not exit after SIGTERM")
			}
			var mp struct {
				MyProvider struct{ Machines []struct{ Hostname string } }
			}
			provider.MustDo(&mp, `{ myProvider { machines { hostname } } }`, nil)
			n := 0
			for _, m := range mp.MyProvider.Machines {
				if m.Hostname == "e2e-host" {
					n++
				}
			}
			require.Equal(t, 1, n, "one machine across restarts")
		})
	}
}
