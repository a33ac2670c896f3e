//go:build unix

package installer_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/job/docker"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/installer"
)

const (
	testAgentImage = "ghcr.io/gpunex/test-agent:1.2.3"
	defaultCUDA    = "nvidia/cuda:12.4.1-base-ubuntu22.04"
)

// fakeDocker stands in for the docker CLI: it appends its argv to
// $FAKE_LOG and behaves like the real one for the calls the installer
// makes. FAKE_DOCKER_* variables make single calls fail.
const fakeDocker = `#!/bin/sh
printf 'docker %s\n' "$*" >>"$FAKE_LOG"
case "$1" in
info)
	if [ -n "${FAKE_DOCKER_INFO_FAIL:-}" ]; then
		echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2
		exit 1
	fi
	echo 'Server Version: 27.3.1'
	;;
pull)
	if [ -n "${FAKE_DOCKER_PULL_FAIL:-}" ]; then
		echo "Error response from daemon: pull access denied for $2" >&2
		exit 1
	fi
	echo "Status: Downloaded newer image for $2"
	;;
container)
	if [ "$2" = inspect ] && [ -n "${FAKE_DOCKER_EXISTING:-}" ]; then
		echo '[{"Name": "/gpunex-agent"}]'
		exit 0
	fi
	echo "Error: No such container: $3" >&2
	exit 1
	;;
rm)
	echo "$3"
	;;
run)
	if [ "$2" = --rm ]; then
		if [ -n "${FAKE_DOCKER_GPU_FAIL:-}" ]; then
			echo 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].' >&2
			exit 125
		fi
		echo '| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4 |'
		exit 0
	fi
	# docker run -d: the env file must exist when the container starts.
	while [ $# -gt 0 ]; do
		if [ "$1" = --env-file ] && [ ! -r "$2" ]; then
			echo "docker: open $2: no such file or directory." >&2
			exit 125
		fi
		shift
	done
	echo 4f1c2a9b7d3e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8
	;;
*)
	echo "fake docker: unexpected call" >&2
	exit 2
	;;
esac
`

// fakeNvidiaSMI stands in for the host's nvidia-smi.
const fakeNvidiaSMI = `#!/bin/sh
printf 'nvidia-smi %s\n' "$*" >>"$FAKE_LOG"
if [ -n "${FAKE_NVIDIA_SMI_FAIL:-}" ]; then
	echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.' >&2
	exit 9
fi
echo 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5c2b1f7e-0000-0000-0000-000000000000)'
`

// fakeIptables stands in for iptables: it appends its argv to $FAKE_LOG
// and keeps the filter table in $FAKE_IPTABLES, a file per chain holding
// its rules one a line, so -C, -I 1, -N and -F behave as the real ones do.
// FAKE_IPTABLES_FAIL makes every call fail as it does for a non-root user.
const fakeIptables = `#!/bin/sh
printf 'iptables %s\n' "$*" >>"$FAKE_LOG"
if [ -n "${FAKE_IPTABLES_FAIL:-}" ]; then
	echo 'iptables v1.8.10 (nf_tables): Could not fetch rule set generation id: Permission denied (you must be root)' >&2
	exit 4
fi
[ "$1" = -w ] && shift
op=$1 chain=$2
shift 2
f="$FAKE_IPTABLES/$chain"
if [ "$op" = -N ]; then
	if [ -e "$f" ]; then
		echo 'iptables: Chain already exists.' >&2
		exit 1
	fi
	: >"$f"
	exit 0
fi
if [ ! -e "$f" ]; then
	echo 'iptables: No chain/target/match by that name.' >&2
	exit 1
fi
case $op in
-F) : >"$f" ;;
-X) rm -f "$f" ;;
-S)
	printf -- '-N %s\n' "$chain"
	while IFS= read -r l; do printf -- '-A %s %s\n' "$chain" "$l"; done <"$f"
	;;
-A) printf '%s\n' "$*" >>"$f" ;;
-I)
	shift # the position: always 1 here
	rules=''
	while IFS= read -r l; do rules="$rules$l
"; done <"$f"
	printf '%s\n%s' "$*" "$rules" >"$f"
	;;
-C)
	while IFS= read -r l; do [ "$l" = "$*" ] && exit 0; done <"$f"
	echo 'iptables: Bad rule (does a matching rule exist in that chain?).' >&2
	exit 1
	;;
-D)
	rules='' found=''
	while IFS= read -r l; do
		if [ -z "$found" ] && [ "$l" = "$*" ]; then found=1; continue; fi
		rules="$rules$l
"
	done <"$f"
	[ -n "$found" ] || exit 1
	printf '%s' "$rules" >"$f"
	;;
*)
	echo "fake iptables: unexpected call" >&2
	exit 2
	;;
esac
`

// fakeSystemctl stands in for systemctl; FAKE_SYSTEMCTL_FAIL makes it fail
// as it does where systemd is installed but not running.
const fakeSystemctl = `#!/bin/sh
printf 'systemctl %s\n' "$*" >>"$FAKE_LOG"
if [ -n "${FAKE_SYSTEMCTL_FAIL:-}" ]; then
	echo 'System has not been booted with systemd as init system (PID 1). Can'"'"'t operate.' >&2
	exit 1
fi
`

// resolvConf and resolvedConf stand in for /etc/resolv.conf and
// /run/systemd/resolve/resolv.conf: a LAN resolver (listed twice), a
// loopback stub, an IPv6 one, and a public one.
const (
	resolvConf   = "# written by NetworkManager\nsearch lan\nnameserver 192.168.1.1\nnameserver 127.0.0.53\nnameserver fe80::1%eth0\n"
	resolvedConf = "nameserver 192.168.1.1\nnameserver 1.1.1.1\n"
)

// hostTools are the only programs besides docker and nvidia-smi that the
// installer may need; the tests put them on the stand-in PATH behind a
// wrapper that records their argv (see toolWrapper).
var hostTools = []string{"mkdir", "chmod", "mv", "rm", "stty", "stat", "cat"}

// toolWrapper stands in for a host tool: it appends its name and
// arguments to $FAKE_ARGV and runs the real program. With the stand-ins,
// which log to $FAKE_LOG, every program the installer starts leaves its
// command line behind, so a test can show the token is on none of them.
const toolWrapper = `#!/bin/sh
printf '%s %s\n' TOOL "$*" >>"$FAKE_ARGV"
exec REAL "$@"
`

// host is a stand-in provider machine: a PATH directory with fake
// programs, a call log and a config directory.
type host struct {
	dir string
	bin string
	log string
	// argv logs the command lines of the host tools (toolWrapper).
	argv string
	// args are the script's arguments: `sh -s -- args...` from a pipe.
	args      []string
	configDir string
	script    string
	// dockerSocket stands in for /var/run/docker.sock (a plain file: the
	// installer only checks it exists and reads its group).
	dockerSocket string
	// dockerGID is dockerSocket's group, which the agent container joins.
	dockerGID string
	// libDir and unitDir stand in for /usr/local/lib/gpunex and
	// /etc/systemd/system; iptables holds the fake filter table.
	libDir, unitDir, iptables string
	// resolvConfs are the resolv.conf files the firewall reads.
	resolvConfs string
}

type hostOption func(t *testing.T, bin string)

// withoutDocker leaves docker off PATH.
func withoutDocker(t *testing.T, bin string) {
	require.NoError(t, os.Remove(filepath.Join(bin, "docker")))
}

// withoutIptables leaves iptables off PATH.
func withoutIptables(t *testing.T, bin string) {
	require.NoError(t, os.Remove(filepath.Join(bin, "iptables")))
}

// withoutSystemctl leaves systemctl off PATH, as on a host without systemd.
func withoutSystemctl(t *testing.T, bin string) {
	require.NoError(t, os.Remove(filepath.Join(bin, "systemctl")))
}

// withoutNvidiaSMI leaves nvidia-smi off PATH.
func withoutNvidiaSMI(t *testing.T, bin string) {
	require.NoError(t, os.Remove(filepath.Join(bin, "nvidia-smi")))
}

func newHost(t *testing.T, script []byte, opts ...hostOption) *host {
	t.Helper()
	dir := t.TempDir()
	h := &host{
		dir:       dir,
		bin:       filepath.Join(dir, "bin"),
		log:       filepath.Join(dir, "calls.log"),
		argv:      filepath.Join(dir, "argv.log"),
		configDir: filepath.Join(dir, "etc", "gpunex"),
		script:    filepath.Join(dir, "install.sh"),

		dockerSocket: filepath.Join(dir, "docker.sock"),
		libDir:       filepath.Join(dir, "usr", "local", "lib", "gpunex"),
		unitDir:      filepath.Join(dir, "etc", "systemd", "system"),
		iptables:     filepath.Join(dir, "iptables"),
		resolvConfs:  filepath.Join(dir, "resolv.conf") + " " + filepath.Join(dir, "resolved.conf"),
	}
	require.NoError(t, os.Mkdir(h.bin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "resolv.conf"), []byte(resolvConf), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "resolved.conf"), []byte(resolvedConf), 0o644))
	// The filter table as Docker leaves it: DOCKER-USER with its RETURN.
	require.NoError(t, os.Mkdir(h.iptables, 0o755))
	for chain, rules := range map[string]string{"INPUT": "-i lo -j ACCEPT\n", "FORWARD": "-j DOCKER-USER\n", "DOCKER-USER": "-j RETURN\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(h.iptables, chain), []byte(rules), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(h.bin, "iptables"), []byte(fakeIptables), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(h.bin, "systemctl"), []byte(fakeSystemctl), 0o755))
	require.NoError(t, os.WriteFile(h.dockerSocket, nil, 0o660))
	info, err := os.Stat(h.dockerSocket)
	require.NoError(t, err)
	st, ok := info.Sys().(*syscall.Stat_t)
	require.True(t, ok)
	h.dockerGID = strconv.FormatUint(uint64(st.Gid), 10)
	require.NoError(t, os.WriteFile(filepath.Join(h.bin, "docker"), []byte(fakeDocker), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(h.bin, "nvidia-smi"), []byte(fakeNvidiaSMI), 0o755))
	for _, tool := range hostTools {
		p, err := exec.LookPath(tool)
		require.NoError(t, err, "the installer tests need %s on PATH", tool)
		wrapper := strings.NewReplacer("TOOL", tool, "REAL", p).Replace(toolWrapper)
		require.NoError(t, os.WriteFile(filepath.Join(h.bin, tool), []byte(wrapper), 0o755))
	}
	for _, opt := range opts {
		opt(t, h.bin)
	}
	require.NoError(t, os.WriteFile(h.script, script, 0o644))
	return h
}

type result struct {
	code   int
	stdout string
	stderr string
	calls  []string
	// argv holds every command line the installer started: its own, the
	// stand-ins' (calls) and the host tools'.
	argv []string
}

// output is everything the script printed.
func (r result) output() string { return r.stdout + r.stderr }

// command prepares `shell <script>`, or `shell` reading the script from
// stdin when pipe is set (as in curl ... | sh), with an environment that
// holds only PATH (the stand-in bin directory), HOME, the fake log, the
// config directory and env. The script runs in a new session, so it has
// no controlling terminal unless the caller gives it one.
func (h *host) command(t *testing.T, ctx context.Context, shell string, pipe bool, env ...string) *exec.Cmd {
	t.Helper()
	shellPath, err := exec.LookPath(shell)
	require.NoError(t, err)
	var cmd *exec.Cmd
	if pipe {
		script, err := os.ReadFile(h.script)
		require.NoError(t, err)
		args := h.args
		if len(args) > 0 {
			args = append([]string{"-s", "--"}, args...)
		}
		cmd = exec.CommandContext(ctx, shellPath, args...)
		cmd.Stdin = bytes.NewReader(script)
	} else {
		cmd = exec.CommandContext(ctx, shellPath, append([]string{h.script}, h.args...)...)
	}
	cmd.Dir = h.dir
	cmd.Env = append([]string{
		"PATH=" + h.bin,
		"HOME=" + h.dir,
		"FAKE_LOG=" + h.log,
		"FAKE_ARGV=" + h.argv,
		"GPUNEX_CONFIG_DIR=" + h.configDir,
		"GPUNEX_DOCKER_SOCKET=" + h.dockerSocket,
		"GPUNEX_LIB_DIR=" + h.libDir,
		"GPUNEX_SYSTEMD_UNIT_DIR=" + h.unitDir,
		"GPUNEX_RESOLV_CONFS=" + h.resolvConfs,
		"FAKE_IPTABLES=" + h.iptables,
	}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

// finish waits for cmd and collects its exit code and the logged calls.
func (h *host) finish(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer, err error) result {
	t.Helper()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		exitErr, ok := err.(*exec.ExitError)
		require.True(t, ok, "running the installer: %v\n%s", err, r.output())
		r.code = exitErr.ExitCode()
	}
	log, err := os.ReadFile(h.log)
	if !os.IsNotExist(err) {
		require.NoError(t, err)
		r.calls = strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	}
	r.argv = append([]string{strings.Join(cmd.Args, " ")}, r.calls...)
	tools, err := os.ReadFile(h.argv)
	if !os.IsNotExist(err) {
		require.NoError(t, err)
		r.argv = append(r.argv, strings.Split(strings.TrimSuffix(string(tools), "\n"), "\n")...)
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s\ncalls:\n%s", r.code, r.stdout, r.stderr, strings.Join(r.calls, "\n"))
	return r
}

// run runs the installer script file with sh.
func (h *host) run(t *testing.T, env ...string) result {
	t.Helper()
	return h.runWith(t, "sh", false, env...)
}

func (h *host) runWith(t *testing.T, shell string, pipe bool, env ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), await.Patience(t))
	defer cancel()
	cmd := h.command(t, ctx, shell, pipe, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "the installer did not finish")
	return h.finish(t, cmd, &stdout, &stderr, err)
}

// fetchScript serves the installer with httptest and returns the script
// and the server's URL, as a provider's curl would get them.
func fetchScript(t *testing.T) ([]byte, string) {
	t.Helper()
	srv := newServer(t, nil, testAgentImage)
	resp, err := http.Get(srv.URL + installer.Path)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return body, srv.URL
}

func newServer(t *testing.T, serverURL func(*http.Request) string, image string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(installer.Path, installer.Handler(serverURL, image))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// newToken returns a well-formed agent token: the prefix and 256 random
// bits in base64url, like the ones the platform issues.
func newToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return "gpx_a_" + base64.RawURLEncoding.EncodeToString(b)
}

func successCalls(h *host, image string) []string {
	calls := []string{
		"docker info",
		"nvidia-smi -L",
		"docker run --rm --gpus all " + defaultCUDA + " nvidia-smi",
	}
	calls = append(calls, firewallCalls(true)...)
	calls = append(calls, "systemctl daemon-reload", "systemctl enable --now gpunex-egress.service")
	return append(calls,
		"docker pull "+image,
		"docker container inspect gpunex-agent",
		agentRunCall(h, image),
	)
}

// jobPool is the agent's job subnet pool, which the firewall must match.
var jobPool = docker.SubnetPool

// firewallCalls are the iptables calls of one `egress-firewall apply`:
// first (no GPUnex chain or jump yet) or again.
func firewallCalls(first bool) []string {
	calls := []string{"iptables -w -S DOCKER-USER"}
	newChain := func(c string) {
		calls = append(calls, "iptables -w -N "+c)
		if !first {
			calls = append(calls, "iptables -w -F "+c)
		}
	}
	newChain("GPUNEX-EGRESS")
	for _, r := range wantEgressRules {
		calls = append(calls, "iptables -w -A GPUNEX-EGRESS "+r)
	}
	newChain("GPUNEX-HOST")
	for _, r := range wantHostRules {
		calls = append(calls, "iptables -w -A GPUNEX-HOST "+r)
	}
	for _, j := range [][2]string{{"DOCKER-USER", "GPUNEX-EGRESS"}, {"INPUT", "GPUNEX-HOST"}} {
		calls = append(calls, "iptables -w -C "+j[0]+" -s "+jobPool+" -j "+j[1])
		if first {
			calls = append(calls, "iptables -w -I "+j[0]+" 1 -s "+jobPool+" -j "+j[1])
		}
	}
	return calls
}

// wantEgressRules is GPUNEX-EGRESS, for forwarded traffic from the job
// pool: DNS to the host's resolvers, then no private, shared or
// link-local destination.
var wantEgressRules = []string{
	"-d 192.168.1.1 -p udp --dport 53 -j RETURN",
	"-d 192.168.1.1 -p tcp --dport 53 -j RETURN",
	"-d 1.1.1.1 -p udp --dport 53 -j RETURN",
	"-d 1.1.1.1 -p tcp --dport 53 -j RETURN",
	"-d 10.0.0.0/8 -j REJECT --reject-with icmp-admin-prohibited",
	"-d 172.16.0.0/12 -j REJECT --reject-with icmp-admin-prohibited",
	"-d 192.168.0.0/16 -j REJECT --reject-with icmp-admin-prohibited",
	"-d 100.64.0.0/10 -j REJECT --reject-with icmp-admin-prohibited",
	"-d 169.254.0.0/16 -j REJECT --reject-with icmp-admin-prohibited",
}

// wantHostRules is GPUNEX-HOST, for traffic from the job pool to the host:
// replies to the host's own connections and DNS, nothing else.
var wantHostRules = []string{
	"-m conntrack --ctstate RELATED,ESTABLISHED -j RETURN",
	"-d 192.168.1.1 -p udp --dport 53 -j RETURN",
	"-d 192.168.1.1 -p tcp --dport 53 -j RETURN",
	"-d 1.1.1.1 -p udp --dport 53 -j RETURN",
	"-d 1.1.1.1 -p tcp --dport 53 -j RETURN",
	"-j REJECT --reject-with icmp-admin-prohibited",
}

// filterTable reads the fake filter table: rules by chain.
func (h *host) filterTable(t *testing.T) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(h.iptables)
	require.NoError(t, err)
	table := map[string][]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(h.iptables, e.Name()))
		require.NoError(t, err)
		table[e.Name()] = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	return table
}

// requireFirewall checks the filter table holds the GPUnex rules, each
// jump once and first in its chain, the host's own rules kept.
func requireFirewall(t *testing.T, h *host) {
	t.Helper()
	require.Equal(t, map[string][]string{
		"INPUT":         {"-s " + jobPool + " -j GPUNEX-HOST", "-i lo -j ACCEPT"},
		"FORWARD":       {"-j DOCKER-USER"},
		"DOCKER-USER":   {"-s " + jobPool + " -j GPUNEX-EGRESS", "-j RETURN"},
		"GPUNEX-EGRESS": wantEgressRules,
		"GPUNEX-HOST":   wantHostRules,
	}, h.filterTable(t))
}

func agentRunCall(h *host, image string) string {
	return "docker run -d --name gpunex-agent --restart unless-stopped --gpus all" +
		" --env-file " + filepath.Join(h.configDir, "agent.env") +
		" -v gpunex-agent-data:/var/lib/gpunex-agent" +
		" -v " + h.dockerSocket + ":/var/run/docker.sock" +
		" --group-add " + h.dockerGID + " " + image
}

// requireConfig checks the agent's env file: mode 600, exactly the server
// and the token.
func requireConfig(t *testing.T, h *host, server, token string) {
	t.Helper()
	path := filepath.Join(h.configDir, "agent.env")
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "GPUNEX_SERVER="+server+"\nGPUNEX_TOKEN="+token+"\n", string(data))
	entries, err := os.ReadDir(h.configDir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary files left behind")
}

// requireTokenHidden checks the token was neither printed nor on the
// command line of any program the installer started (issue 9, point 8).
func requireTokenHidden(t *testing.T, r result, token string) {
	t.Helper()
	require.NotContains(t, r.output(), token, "the token is never printed")
	require.NotEmpty(t, r.argv)
	for _, argv := range r.argv {
		require.NotContains(t, argv, token, "the token is never on a command line")
	}
}

func requireNoAgentStarted(t *testing.T, r result) {
	t.Helper()
	for _, c := range r.calls {
		require.False(t, strings.HasPrefix(c, "docker run -d"), "the agent must not be started: %s", c)
		require.False(t, strings.HasPrefix(c, "docker rm"), "a running agent must not be removed: %s", c)
	}
}

func TestHandlerServesScript(t *testing.T) {
	srv := newServer(t, nil, testAgentImage)

	resp, err := http.Get(srv.URL + installer.Path)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())

	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/x-shellscript; charset=utf-8", resp.Header.Get("Content-Type"))
	require.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	script := string(body)
	require.True(t, strings.HasPrefix(script, "#!/bin/sh\n"), script[:40])
	require.Contains(t, script, "server=${GPUNEX_SERVER:-'"+srv.URL+"'}")
	require.Contains(t, script, "agent_image=${GPUNEX_AGENT_IMAGE:-'"+testAgentImage+"'}")
	require.Contains(t, script, "curl -fsSL "+srv.URL+"/agent/install.sh | sudo sh\n")
	require.Contains(t, script, "curl -fsSL "+srv.URL+"/agent/install.sh | sudo sh -s -- --token-file /root/gpunex-token\n")
	require.NotContains(t, script, "sudo GPUNEX_TOKEN=gpx", "issue 9 point 8: no suggested command carries the token")
	require.NotContains(t, script, "{{", "every template action is filled in")

	t.Run("X-Forwarded-Proto", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+installer.Path, nil)
		require.NoError(t, err)
		req.Header.Set("X-Forwarded-Proto", "https")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		httpsURL := "https://" + strings.TrimPrefix(srv.URL, "http://")
		require.Contains(t, string(body), "server=${GPUNEX_SERVER:-'"+httpsURL+"'}")
	})

	t.Run("HEAD", func(t *testing.T) {
		resp, err := http.Head(srv.URL + installer.Path)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, installer.ContentType, resp.Header.Get("Content-Type"))
		require.Equal(t, int64(len(body)), resp.ContentLength)
	})

	t.Run("POST is refused", func(t *testing.T) {
		resp, err := http.Post(srv.URL+installer.Path, "text/plain", strings.NewReader("x"))
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
		require.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
	})
}

func TestHandlerUsesConfiguredServerURLAndDefaultImage(t *testing.T) {
	srv := newServer(t, func(*http.Request) string { return "https://gpunex.example.com/" }, "")
	resp, err := http.Get(srv.URL + installer.Path)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "server=${GPUNEX_SERVER:-'https://gpunex.example.com'}", "trailing slash dropped")
	require.Contains(t, string(body), "agent_image=${GPUNEX_AGENT_IMAGE:-'"+installer.DefaultAgentImage+"'}")
	require.NotContains(t, string(body), srv.URL)
}

func TestHandlerRefusesBadServerURL(t *testing.T) {
	for _, bad := range []string{
		"",
		"gpunex.example.com",
		"ftp://gpunex.example.com",
		"https://",
		"https://gpunex.example.com/a b",
		"https://gpunex.example.com\nGPUNEX_TOKEN=x",
		"https://user:pw@gpunex.example.com",
		"https://gpunex.example.com/?x=1",
		"https://gpunex.example.com/#frag",
	} {
		t.Run(bad, func(t *testing.T) {
			srv := newServer(t, func(*http.Request) string { return bad }, testAgentImage)
			resp, err := http.Get(srv.URL + installer.Path)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			require.Contains(t, string(body), "invalid server URL")
			require.NotContains(t, string(body), "#!/bin/sh")
		})
	}
	_, err := installer.Script("https://gpunex.example.com", "bad image")
	require.ErrorContains(t, err, "invalid agent image")
}

func TestRequestServerURL(t *testing.T) {
	for _, tc := range []struct {
		name, host, proto string
		tls               bool
		want              string
	}{
		{"plain", "gpunex.example.com:8080", "", false, "http://gpunex.example.com:8080"},
		{"tls", "gpunex.example.com", "", true, "https://gpunex.example.com"},
		{"proxy https", "gpunex.example.com", "https", false, "https://gpunex.example.com"},
		{"proxy list", "gpunex.example.com", "HTTPS, http", false, "https://gpunex.example.com"},
		{"proxy http over tls", "gpunex.example.com", "http", true, "http://gpunex.example.com"},
		{"proxy junk ignored", "gpunex.example.com", "gopher", false, "http://gpunex.example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := "http://" + tc.host + installer.Path
			if tc.tls {
				target = "https://" + tc.host + installer.Path // sets r.TLS
			}
			r := httptest.NewRequest(http.MethodGet, target, nil)
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			require.Equal(t, tc.want, installer.RequestServerURL(r))
		})
	}
}

func TestShellcheck(t *testing.T) {
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Fatal("shellcheck is not installed: install it (Debian/Ubuntu: apt-get install -y shellcheck) so the installer script can be checked")
	}
	script, _ := fetchScript(t)
	path := filepath.Join(t.TempDir(), "install.sh")
	require.NoError(t, os.WriteFile(path, script, 0o644))
	out, err := exec.Command(shellcheck, "--shell=sh", "--severity=style", path).CombinedOutput()
	require.NoError(t, err, "shellcheck found problems in the installer:\n%s", out)

	// And the egress firewall script it writes.
	h := newHost(t, script)
	r := h.run(t, "GPUNEX_TOKEN="+newToken(t))
	require.Equal(t, 0, r.code, r.output())
	out, err = exec.Command(shellcheck, "--shell=sh", "--severity=style", filepath.Join(h.libDir, "egress-firewall")).CombinedOutput()
	require.NoError(t, err, "shellcheck found problems in the egress firewall script:\n%s", out)
}

func TestInstallSucceeds(t *testing.T) {
	script, server := fetchScript(t)
	for _, shell := range []string{"sh", "dash", "bash"} {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); err != nil {
				t.Skipf("%s is not installed", shell)
			}
			h := newHost(t, script)
			token := newToken(t)

			r := h.runWith(t, shell, false, "GPUNEX_TOKEN="+token)

			require.Equal(t, 0, r.code, r.output())
			require.Equal(t, successCalls(h, testAgentImage), r.calls)
			requireConfig(t, h, server, token)
			requireTokenHidden(t, r, token)
			require.Contains(t, r.stdout, "token taken from GPUNEX_TOKEN (not shown)")
			require.NotContains(t, r.output(), token[len("gpx_a_"):len("gpx_a_")+8])
			require.Contains(t, r.stdout, "docker ps | grep gpunex-agent")
			require.Contains(t, r.stdout, "docker logs -f gpunex-agent")
			require.Contains(t, r.stdout, "NVIDIA H100 80GB HBM3", "the GPUs found are shown")
			require.Empty(t, r.stderr)
		})
	}
}

func TestInstallFromPipe(t *testing.T) {
	// curl -fsSL <server>/agent/install.sh | GPUNEX_TOKEN=... sh: the script
	// is the shell's stdin, so nothing it runs may read stdin.
	script, server := fetchScript(t)
	h := newHost(t, script)
	token := newToken(t)

	r := h.runWith(t, "sh", true, "GPUNEX_TOKEN="+token)

	require.Equal(t, 0, r.code, r.output())
	require.Equal(t, successCalls(h, testAgentImage), r.calls)
	requireConfig(t, h, server, token)
	require.NotContains(t, r.output(), token)
}

func TestInstallReplacesPreviousContainer(t *testing.T) {
	script, server := fetchScript(t)
	h := newHost(t, script)
	token := newToken(t)
	require.NoError(t, os.MkdirAll(h.configDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(h.configDir, "agent.env"), []byte("GPUNEX_TOKEN=gpx_a_old\n"), 0o644))

	r := h.run(t, "GPUNEX_TOKEN="+token, "FAKE_DOCKER_EXISTING=1")

	require.Equal(t, 0, r.code, r.output())
	want := successCalls(h, testAgentImage)
	n := len(want)
	want = append(want[:n-1:n-1], "docker rm -f gpunex-agent", want[n-1])
	require.Equal(t, want, r.calls)
	require.Contains(t, r.stdout, "removing the previous gpunex-agent container")
	requireConfig(t, h, server, token)
}

func TestInstallHonoursOverrides(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)
	token := newToken(t)

	r := h.run(t, "GPUNEX_TOKEN="+token,
		"GPUNEX_SERVER=https://gpunex.example.com",
		"GPUNEX_AGENT_IMAGE=registry.example.com/gpunex-agent:dev",
		"GPUNEX_CUDA_TEST_IMAGE=nvidia/cuda:12.6.0-base-ubuntu24.04")

	require.Equal(t, 0, r.code, r.output())
	want := []string{
		"docker info",
		"nvidia-smi -L",
		"docker run --rm --gpus all nvidia/cuda:12.6.0-base-ubuntu24.04 nvidia-smi",
	}
	want = append(want, firewallCalls(true)...)
	want = append(want, "systemctl daemon-reload", "systemctl enable --now gpunex-egress.service",
		"docker pull registry.example.com/gpunex-agent:dev",
		"docker container inspect gpunex-agent",
		agentRunCall(h, "registry.example.com/gpunex-agent:dev"))
	require.Equal(t, want, r.calls)
	requireConfig(t, h, "https://gpunex.example.com", token)
}

func TestInstallRefusesBadServerOverride(t *testing.T) {
	script, _ := fetchScript(t)
	for _, bad := range []string{"gpunex.example.com", "ftp://gpunex.example.com", "https://gpunex.example.com/a b"} {
		t.Run(bad, func(t *testing.T) {
			h := newHost(t, script)

			r := h.run(t, "GPUNEX_TOKEN="+newToken(t), "GPUNEX_SERVER="+bad)

			require.NotEqual(t, 0, r.code)
			require.Contains(t, r.stderr, "GPUNEX_SERVER must")
			require.Empty(t, r.calls)
		})
	}
}

func TestInstallQuotesServerURL(t *testing.T) {
	// A server URL with shell metacharacters reaches the config verbatim
	// and runs nothing.
	odd := "https://gpunex.example.com/o'brien/$(touch${IFS}pwned)`id`"
	srv := newServer(t, func(*http.Request) string { return odd }, testAgentImage)
	resp, err := http.Get(srv.URL + installer.Path)
	require.NoError(t, err)
	script, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	h := newHost(t, script)
	token := newToken(t)

	r := h.run(t, "GPUNEX_TOKEN="+token)

	require.Equal(t, 0, r.code, r.output())
	requireConfig(t, h, odd, token)
	require.NoFileExists(t, filepath.Join(h.dir, "pwned"))
}

func TestInstallWithoutDocker(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script, withoutDocker)
	token := newToken(t)

	r := h.run(t, "GPUNEX_TOKEN="+token)

	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "Docker is not installed")
	require.Contains(t, r.stderr, "https://docs.docker.com/engine/install/")
	require.Empty(t, r.calls, "nothing else runs")
	require.NoDirExists(t, h.configDir)
	require.NotContains(t, r.output(), token)
}

func TestInstallDockerDaemonDown(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)

	r := h.run(t, "GPUNEX_TOKEN="+newToken(t), "FAKE_DOCKER_INFO_FAIL=1")

	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "'docker info' failed")
	require.Contains(t, r.stderr, "Cannot connect to the Docker daemon", "docker's own error is shown")
	require.Contains(t, r.stderr, "systemctl enable --now docker")
	require.Equal(t, []string{"docker info"}, r.calls)
	require.NoDirExists(t, h.configDir)
}

func TestInstallWithoutNvidiaDriver(t *testing.T) {
	script, _ := fetchScript(t)
	for name, opt := range map[string]struct {
		host []hostOption
		env  []string
		msg  string
	}{
		"missing": {host: []hostOption{withoutNvidiaSMI}, msg: "The NVIDIA driver is not installed"},
		"broken":  {env: []string{"FAKE_NVIDIA_SMI_FAIL=1"}, msg: "'nvidia-smi -L' failed"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHost(t, script, opt.host...)

			r := h.run(t, append(opt.env, "GPUNEX_TOKEN="+newToken(t))...)

			require.NotEqual(t, 0, r.code)
			require.Contains(t, r.stderr, opt.msg)
			requireNoAgentStarted(t, r)
			require.NoDirExists(t, h.configDir)
		})
	}
}

func TestInstallWithoutContainerToolkit(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)
	token := newToken(t)

	r := h.run(t, "GPUNEX_TOKEN="+token, "FAKE_DOCKER_GPU_FAIL=1")

	require.NotEqual(t, 0, r.code)
	require.Equal(t, []string{
		"docker info",
		"nvidia-smi -L",
		"docker run --rm --gpus all " + defaultCUDA + " nvidia-smi",
	}, r.calls)
	require.Contains(t, r.stderr, "Containers cannot use the GPUs")
	require.Contains(t, r.stderr, "could not select device driver", "docker's own error is shown")
	require.Contains(t, r.stderr, "nvidia-container-toolkit")
	require.Contains(t, r.stderr, "nvidia-ctk runtime configure --runtime=docker")
	require.Contains(t, r.stderr, "systemctl restart docker")
	require.NoDirExists(t, h.configDir)
	require.NotContains(t, r.output(), token)
}

func TestInstallWithoutToken(t *testing.T) {
	script, _ := fetchScript(t)
	for name, env := range map[string][]string{
		"unset": nil,
		"empty": {"GPUNEX_TOKEN="},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHost(t, script)

			// No token file, no GPUNEX_TOKEN, stdin not a terminal, no
			// controlling terminal.
			r := h.run(t, env...)

			require.NotEqual(t, 0, r.code)
			require.Contains(t, r.stderr, "No agent token, and no terminal to ask for it on.")
			require.Contains(t, r.stderr, "/agent/install.sh | sudo sh -s -- --token-file /root/gpunex-token")
			require.NotContains(t, r.stderr, "GPUNEX_TOKEN=", "the fix it suggests does not put the token on a command line")
			require.Empty(t, r.calls, "refused before anything runs")
			require.NoDirExists(t, h.configDir)
		})
	}
}

func TestInstallMalformedToken(t *testing.T) {
	script, _ := fetchScript(t)
	valid := newToken(t)
	for _, tc := range []struct {
		name, token, msg string
	}{
		{"session token", "gpx_s_" + valid[len("gpx_a_"):], "That is not an agent token: agent tokens start with gpx_a_"},
		{"no prefix", "hunter2-secret", "That is not an agent token: agent tokens start with gpx_a_"},
		{"prefix only", "gpx_a_", "The agent token is malformed"},
		{"space inside", valid[:20] + " " + valid[20:], "The agent token is malformed"},
		{"line break", valid + "\nGPUNEX_SERVER=https://evil.example", "The agent token is malformed"},
		{"quote", valid + "'", "The agent token is malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, script)

			r := h.run(t, "GPUNEX_TOKEN="+tc.token)

			require.NotEqual(t, 0, r.code)
			require.Contains(t, r.stderr, tc.msg)
			require.Empty(t, r.calls, "a bad token is refused before anything runs")
			require.NoDirExists(t, h.configDir)
			if tc.token != "gpx_a_" {
				require.NotContains(t, r.output(), tc.token)
			}
		})
	}
}

func TestInstallConfigDirNotWritable(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)
	blocker := filepath.Join(h.dir, "not-a-dir")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))

	r := h.run(t, "GPUNEX_TOKEN="+newToken(t), "GPUNEX_CONFIG_DIR="+filepath.Join(blocker, "gpunex"))

	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "Cannot create "+filepath.Join(blocker, "gpunex"))
	require.Contains(t, r.stderr, "sudo sh")
	requireNoAgentStarted(t, r)
}

func TestInstallPullFailureKeepsRunningAgent(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)

	r := h.run(t, "GPUNEX_TOKEN="+newToken(t), "FAKE_DOCKER_PULL_FAIL=1", "FAKE_DOCKER_EXISTING=1")

	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "Could not pull "+testAgentImage)
	require.Contains(t, r.stderr, "pull access denied")
	require.Equal(t, "docker pull "+testAgentImage, r.calls[len(r.calls)-1])
	requireNoAgentStarted(t, r)
}

func TestInstallWithoutDockerSocket(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)
	missing := filepath.Join(h.dir, "no", "docker.sock")

	r := h.run(t, "GPUNEX_TOKEN="+newToken(t), "GPUNEX_DOCKER_SOCKET="+missing)

	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "The Docker socket "+missing+" does not exist")
	require.Contains(t, r.stderr, "set GPUNEX_DOCKER_SOCKET")
	require.Equal(t, []string{"docker info"}, r.calls)
	require.NoDirExists(t, h.configDir)
}

func TestInstallRefusesBadDockerSocketOverride(t *testing.T) {
	script, _ := fetchScript(t)
	for _, bad := range []string{"docker.sock", "/run/docker.sock:/etc", "/run/docker sock"} {
		t.Run(bad, func(t *testing.T) {
			h := newHost(t, script)
			r := h.run(t, "GPUNEX_TOKEN="+newToken(t), "GPUNEX_DOCKER_SOCKET="+bad)
			require.NotEqual(t, 0, r.code)
			require.Contains(t, r.stderr, "GPUNEX_DOCKER_SOCKET must")
			requireNoAgentStarted(t, r)
		})
	}
}

func TestInstallerJobPoolIsTheAgentsSubnetPool(t *testing.T) {
	script, _ := fetchScript(t)
	require.Contains(t, string(script), "\tjob_pool="+docker.SubnetPool+"\n",
		"the firewall must match the subnets the agent gives job networks (agent/job/docker.SubnetPool)")
}

func TestInstallFirewallKeepsJobsOffTheLANAndTheHost(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)

	r := h.run(t, "GPUNEX_TOKEN="+newToken(t))

	require.Equal(t, 0, r.code, r.output())
	requireFirewall(t, h)
	require.Contains(t, r.stdout, "jobs ("+jobPool+") reach the internet and their DNS servers, but not this host")
	require.Contains(t, r.stdout, "gpunex-egress.service applies it again whenever Docker starts")

	fw := filepath.Join(h.libDir, "egress-firewall")
	info, err := os.Stat(fw)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), info.Mode().Perm())
	unit, err := os.ReadFile(filepath.Join(h.unitDir, "gpunex-egress.service"))
	require.NoError(t, err)
	for _, line := range []string{
		"After=docker.service",
		"PartOf=docker.service", // restarted with Docker
		"Type=oneshot",
		"RemainAfterExit=yes",
		"ExecStart=/bin/sh " + fw + " apply",
		"WantedBy=docker.service multi-user.target", // started with Docker, so at boot
	} {
		require.Contains(t, strings.Split(string(unit), "\n"), line)
	}
	require.NotContains(t, string(unit), "ExecStop", "the rules stay while Docker restarts (live-restore keeps jobs running)")
}

func TestInstallFirewallIsIdempotent(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)
	first := h.run(t, "GPUNEX_TOKEN="+newToken(t))
	require.Equal(t, 0, first.code, first.output())
	require.NoError(t, os.Remove(h.log))

	again := h.run(t, "GPUNEX_TOKEN="+newToken(t), "FAKE_DOCKER_EXISTING=1")

	require.Equal(t, 0, again.code, again.output())
	requireFirewall(t, h) // each rule and jump once
	require.Equal(t, firewallCalls(false), again.calls[3:3+len(firewallCalls(false))],
		"the chains are emptied and refilled, the jumps only checked")
}

func TestInstallFirewallCanBeRemoved(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script)
	before := h.filterTable(t)
	r := h.run(t, "GPUNEX_TOKEN="+newToken(t))
	require.Equal(t, 0, r.code, r.output())

	cmd := exec.Command(filepath.Join(h.libDir, "egress-firewall"), "remove")
	cmd.Env = []string{"PATH=" + h.bin, "FAKE_LOG=" + h.log, "FAKE_IPTABLES=" + h.iptables}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, before, h.filterTable(t), "the host's table as it was")
}

func TestInstallWithoutIptables(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script, withoutIptables)

	r := h.run(t, "GPUNEX_TOKEN="+newToken(t))

	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "iptables is not installed")
	require.Contains(t, r.stderr, "apt-get install -y iptables")
	require.Contains(t, r.stderr, "dnf install -y iptables-nft")
	require.Contains(t, r.stderr, "GPUNEX_ALLOW_LAN_EGRESS=1", "the opt-out is named")
	requireNoAgentStarted(t, r)
	require.NoDirExists(t, h.configDir)
	require.NoDirExists(t, h.libDir)
}

func TestInstallWithLANEgressAllowedSkipsTheFirewall(t *testing.T) {
	script, server := fetchScript(t)
	h := newHost(t, script, withoutIptables)
	token := newToken(t)

	r := h.run(t, "GPUNEX_TOKEN="+token, "GPUNEX_ALLOW_LAN_EGRESS=1")

	require.Equal(t, 0, r.code, r.output())
	require.Contains(t, r.stderr, "warning: GPUNEX_ALLOW_LAN_EGRESS=1: no egress firewall installed")
	require.Contains(t, r.stderr, "can reach your\nlocal network, this host and cloud metadata endpoints")
	for _, c := range r.calls {
		require.False(t, strings.HasPrefix(c, "iptables") || strings.HasPrefix(c, "systemctl"), c)
	}
	require.NoDirExists(t, h.libDir)
	requireConfig(t, h, server, token)
	require.Equal(t, agentRunCall(h, testAgentImage), r.calls[len(r.calls)-1])
}

func TestInstallFirewallFailureIsFatal(t *testing.T) {
	script, _ := fetchScript(t)
	for _, tc := range []struct {
		desc    string
		arrange func(t *testing.T, h *host)
		env     []string
		msgs    []string
	}{
		{"iptables refuses (not root)", nil, []string{"FAKE_IPTABLES_FAIL=1"},
			[]string{"Could not install the egress firewall", "Permission denied (you must be root)", "sudo sh"}},
		{"no DOCKER-USER chain (Docker without iptables)", func(t *testing.T, h *host) {
			require.NoError(t, os.Remove(filepath.Join(h.iptables, "DOCKER-USER")))
		}, nil, []string{"Could not install the egress firewall", "No chain/target/match", "no DOCKER-USER chain", `"iptables": false`}},
		{"systemd cannot enable the unit", nil, []string{"FAKE_SYSTEMCTL_FAIL=1"},
			[]string{"Could not enable gpunex-egress.service", "has not been booted with systemd", "a reboot would remove it"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			h := newHost(t, script)
			if tc.arrange != nil {
				tc.arrange(t, h)
			}

			r := h.run(t, append(tc.env, "GPUNEX_TOKEN="+newToken(t))...)

			require.NotEqual(t, 0, r.code)
			for _, m := range tc.msgs {
				require.Contains(t, r.stderr, m)
			}
			require.Contains(t, r.stderr, "GPUNEX_ALLOW_LAN_EGRESS=1")
			requireNoAgentStarted(t, r)
			require.NoDirExists(t, h.configDir)
		})
	}
}

func TestInstallFirewallWithoutSystemd(t *testing.T) {
	script, _ := fetchScript(t)
	h := newHost(t, script, withoutSystemctl)

	r := h.run(t, "GPUNEX_TOKEN="+newToken(t))

	require.Equal(t, 0, r.code, r.output())
	requireFirewall(t, h)
	require.Contains(t, r.stderr, "warning: systemd was not found")
	require.Contains(t, r.stderr, "a reboot removes it")
	require.Contains(t, r.stderr, "sh "+filepath.Join(h.libDir, "egress-firewall")+" apply")
	require.NoDirExists(t, h.unitDir)
}

// writeTokenFile writes content to a file only its owner can read, as a
// provider would for --token-file, and returns its path.
func writeTokenFile(t *testing.T, h *host, content string) string {
	t.Helper()
	path := filepath.Join(h.dir, "gpunex-token")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func TestInstallReadsTokenFromFile(t *testing.T) {
	script, server := fetchScript(t)
	for _, tc := range []struct {
		desc string
		// run runs the installer with the token file at path.
		run func(t *testing.T, h *host, path string) result
	}{
		{"curl | sudo sh -s -- --token-file PATH", func(t *testing.T, h *host, path string) result {
			h.args = []string{"--token-file", path}
			return h.runWith(t, "sh", true)
		}},
		{"--token-file=PATH", func(t *testing.T, h *host, path string) result {
			h.args = []string{"--token-file=" + path}
			return h.runWith(t, "sh", true)
		}},
		{"GPUNEX_TOKEN_FILE=PATH", func(t *testing.T, h *host, path string) result {
			return h.runWith(t, "sh", true, "GPUNEX_TOKEN_FILE="+path)
		}},
		{"the argument over GPUNEX_TOKEN and GPUNEX_TOKEN_FILE", func(t *testing.T, h *host, path string) result {
			h.args = []string{"--token-file", path}
			return h.runWith(t, "sh", true, "GPUNEX_TOKEN_FILE=/nonexistent", "GPUNEX_TOKEN=gpx_a_fromTheEnvironment")
		}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			h := newHost(t, script)
			token := newToken(t)
			path := writeTokenFile(t, h, token+"\n")

			r := tc.run(t, h, path)

			require.Equal(t, 0, r.code, r.output())
			require.Equal(t, successCalls(h, testAgentImage), r.calls)
			requireConfig(t, h, server, token)
			requireTokenHidden(t, r, token)
			require.Contains(t, r.stdout, "token read from "+path+" (not shown)")
			require.Contains(t, r.stdout, "you can delete "+path)
			require.Empty(t, r.stderr)
		})
	}
}

func TestInstallTokenFileForgivesLineEndings(t *testing.T) {
	script, server := fetchScript(t)
	for _, tc := range []struct{ desc, content string }{
		{"no final line break", "%s"},
		{"CRLF from an editor on Windows", "%s\r\n"},
		{"blank lines around it", "\n%s\n\n"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			h := newHost(t, script)
			token := newToken(t)
			h.args = []string{"--token-file", writeTokenFile(t, h, strings.Replace(tc.content, "%s", token, 1))}

			r := h.runWith(t, "sh", true)

			require.Equal(t, 0, r.code, r.output())
			requireConfig(t, h, server, token)
			requireTokenHidden(t, r, token)
		})
	}
}

func TestInstallRefusesBadTokenFile(t *testing.T) {
	script, _ := fetchScript(t)
	valid := "gpx_a_" + strings.Repeat("A", 43)
	for _, tc := range []struct {
		desc, content, msg string
		missing            bool
	}{
		{desc: "missing", missing: true, msg: "Cannot read the token file"},
		{desc: "empty", content: "", msg: "The agent token is empty"},
		{desc: "only a line break", content: "\n", msg: "The agent token is empty"},
		{desc: "a session token", content: "gpx_s_" + strings.Repeat("A", 43) + "\n", msg: "That is not an agent token: agent tokens start with gpx_a_"},
		{desc: "a space inside", content: valid[:20] + " " + valid[20:] + "\n", msg: "The agent token is malformed"},
		{desc: "two tokens", content: valid + "\n" + valid + "\n", msg: "must hold only the agent token, on one line"},
		{desc: "an env file", content: "GPUNEX_TOKEN=" + valid + "\n", msg: "That is not an agent token"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			h := newHost(t, script)
			path := filepath.Join(h.dir, "gpunex-token")
			if !tc.missing {
				path = writeTokenFile(t, h, tc.content)
			}
			h.args = []string{"--token-file", path}

			r := h.runWith(t, "sh", true)

			require.NotEqual(t, 0, r.code)
			require.Contains(t, r.stderr, tc.msg)
			require.Empty(t, r.calls, "a bad token file is refused before anything runs")
			require.NoDirExists(t, h.configDir)
			require.NotContains(t, r.output(), strings.Repeat("A", 20), "the file's content is never shown")
		})
	}
}

func TestInstallRefusesTokenAsArgument(t *testing.T) {
	script, _ := fetchScript(t)
	token := newToken(t)
	for _, tc := range []struct {
		desc string
		args []string
		msg  string
	}{
		{"--token TOKEN", []string{"--token", token}, "does not take the token as an argument"},
		{"--token=TOKEN", []string{"--token=" + token}, "does not take the token as an argument"},
		{"the token alone", []string{token}, "does not take the token as an argument"},
		{"anything else", []string{"--yes"}, "Unknown argument. The installer takes only --token-file PATH."},
		{"--token-file without a path", []string{"--token-file"}, "--token-file needs the path of a file"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			h := newHost(t, script)
			h.args = tc.args

			r := h.runWith(t, "sh", true)

			require.NotEqual(t, 0, r.code)
			require.Contains(t, r.stderr, tc.msg)
			require.NotContains(t, r.output(), token)
			require.Empty(t, r.calls)
			require.NoDirExists(t, h.configDir)
		})
	}
}
