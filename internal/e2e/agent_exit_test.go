package e2e_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// exitBound only guards against a hang: an agent with a dead token exits
// within a heartbeat, and the test returns as soon as it does.
const exitBound = 60 * time.Second

// revocableAgentToken signs in as the demo provider and makes an agent
// token, returning the provider's client, the secret and the token's id.
func revocableAgentToken(t testing.TB, srv *platformtest.Server) (provider *platformtest.Client, secret, id string) {
	t.Helper()
	provider = srv.NewAPIClient(t, "")
	var li struct{ LogIn struct{ Token *string } }
	provider.MustDo(&li, `mutation { logIn(input: {email: "provider@gpunex.demo", password: "gpunex-demo"}) { token } }`, nil)
	provider.Token = *li.LogIn.Token
	var ct struct {
		CreateAgentToken struct {
			Token      string
			AgentToken struct{ ID string }
		}
	}
	provider.MustDo(&ct, `mutation { createAgentToken(name: "e2e-exit") { token agentToken { id } } }`, nil)
	return provider, ct.CreateAgentToken.Token, ct.CreateAgentToken.AgentToken.ID
}

// revoke revokes the agent token id as provider.
func revoke(t testing.TB, provider *platformtest.Client, id string) {
	t.Helper()
	var rv struct {
		RevokeAgentToken struct {
			AgentToken *struct{ RevokedAt *string }
			UserErrors []struct{ Field, Code string }
		}
	}
	provider.MustDo(&rv, `mutation($id: ID!) { revokeAgentToken(id: $id) { agentToken { revokedAt } userErrors { field code } } }`,
		map[string]any{"id": id})
	require.Empty(t, rv.RevokeAgentToken.UserErrors)
	require.NotNil(t, rv.RevokeAgentToken.AgentToken.RevokedAt)
}

// exitCode waits for p to exit and returns its status. The wait is on the
// process itself; if it has not exited after exitBound the agent hangs,
// which is the bug: it is killed and the test fails.
func exitCode(t *testing.T, p *process) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			return 0
		}
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		return exit.ExitCode()
	case <-time.After(exitBound):
		_ = p.cmd.Process.Kill()
		t.Logf("killed the agent: %v", <-done) // the cleanup then finds the process reaped
		t.Fatalf("the agent had not exited %s after its token was refused; it hangs", exitBound)
		return 0
	}
}

// Acceptance (issue 24, item 7): an agent started with a revoked token
// exits 1, naming the refused token, instead of running on with nothing
// to do while its service manager shows it "running".
func TestAgentStartedWithARevokedTokenExitsWithStatusOne(t *testing.T) {
	t.Parallel()
	serverBin, agentBin := binaries(t)
	_, url := serve(t, serverBin)
	srv := &platformtest.Server{URL: url}
	provider, secret, id := revocableAgentToken(t, srv)
	revoke(t, provider, id)

	agent := startWithEnv(t, []string{"GPUNEX_TOKEN=" + secret}, agentBin, "--server", url, "--data-dir", t.TempDir(),
		"--simulate", "1xH100", "--hostname", "revoked-host")
	require.Equal(t, 1, exitCode(t, agent), "a refused token is an agent that cannot run")

	out := agent.output()
	require.Contains(t, out, "registerMachine: UNAUTHENTICATED", "the cause is named")
	require.Contains(t, out, "the agent token no longer works")
	require.Contains(t, out, "create a new agent token", "and the fix")
	require.NotContains(t, out, secret, "the token never reaches the logs")
}

// A token revoked while the agent runs: the next heartbeat is refused, and
// the agent exits 1 rather than retrying a token that cannot work again,
// so the host's service manager shows it failed; whatever the benchmark
// runner is doing (the registration's run) does not hold it up.
func TestAgentWhoseTokenIsRevokedWhileRunningExitsWithStatusOne(t *testing.T) {
	t.Parallel()
	serverBin, agentBin := binaries(t)
	_, url := serve(t, serverBin)
	srv := &platformtest.Server{URL: url}
	provider, secret, id := revocableAgentToken(t, srv)

	ws, _, err := srv.DialWS(t, nil)
	require.NoError(t, err)
	ws.Init(map[string]any{"authorization": "Bearer " + provider.Token})
	ws.Subscribe("1", `subscription { machineStatusChanged { machine { hostname status } } }`, nil)

	agent := startWithEnv(t, []string{"GPUNEX_TOKEN=" + secret}, agentBin, "--server", url, "--data-dir", t.TempDir(),
		"--simulate", "1xH100", "--hostname", "revoked-later-host")
	for {
		m := ws.MustRead(exitBound)
		require.Equal(t, "next", m.Type, "%s", m.Payload)
		p := string(m.Payload)
		if strings.Contains(p, `"hostname":"revoked-later-host"`) && strings.Contains(p, `"status":"ONLINE"`) {
			break
		}
	}

	revoke(t, provider, id)
	require.Equal(t, 1, exitCode(t, agent), "a token revoked while running ends the agent")

	out := agent.output()
	require.Contains(t, out, "heartbeat: UNAUTHENTICATED", "the cause is named")
	require.Contains(t, out, "the agent token no longer works")
	require.Contains(t, out, "create a new agent token", "and the fix")
	require.NotContains(t, out, secret, "the token never reaches the logs")
}
