package e2e_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/job/docker"
	"github.com/gpunex/gpunex/agent/job/docker/dockertest"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/installer"
)

// TestEgressFirewallKeepsJobsOffTheLANAndTheHost checks the egress
// firewall docs/agent.md promises ("The host firewall"), as install.sh writes it, against the real
// kernel and Docker engine:
//
//  1. install.sh's own install_firewall (taken from the installer the
//     server serves, not a copy of its rules) writes and applies the
//     firewall script; the chains GPUNEX-EGRESS and GPUNEX-HOST hold each
//     promised rule, their jumps come first in DOCKER-USER and INPUT for
//     the job pool, a second run duplicates nothing, and the script's
//     remove mode leaves no trace. This part runs in a network namespace of
//     its own (with a DOCKER-USER chain standing in for Docker's), so the
//     pool-wide rules never touch the host's other jobs.
//  2. On the host itself, next to the engine's own chains, with two jobs
//     the agent's Docker runtime started on two job networks: from job A,
//     the host side of its own bridge (a listener of the test's) answers
//     before the firewall and after its removal, and is refused while it
//     is in place (GPUNEX-HOST); job B's address, on another job network
//     inside 10.0.0.0/8, is refused by GPUNEX-EGRESS (its 10.0.0.0/8 rule
//     counts the packet, and the refusal is immediate), where without the
//     firewall only Docker's silent inter-network drop stands in the way.
//     Here the same script is applied with its pool narrowed to job A's
//     subnet: other tests on this engine (agent/job/docker's, run in
//     parallel by go test) start jobs of the pool that must reach the host
//     side of their bridge. Its jobs start once those tests' jobs are gone
//     (waitForOtherJobs): two runtimes on one engine can pick one subnet.
//
// Nothing but what the test created is probed. It skips only when not run
// as root, without iptables, or when no Docker engine answers.
func TestEgressFirewallKeepsJobsOffTheLANAndTheHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the egress firewall test changes iptables rules: it needs root (make test runs as root)")
	}
	if _, err := exec.LookPath("iptables"); err != nil {
		t.Skipf("the egress firewall test needs iptables, which the installer requires: %v", err)
	}
	cli, host := egressEngine(t)
	requireNoFirewall(t, "")

	fw := newFirewallInstaller(t)

	t.Run("rules", func(t *testing.T) {
		ns := newNetns(t)
		fw.install(t, ns, "") // the installer's pool

		want := fw.wantChains(docker.SubnetPool)
		requireRules(t, ns, want)
		fw.requireUnit(t)

		fw.install(t, ns, "") // the installer run again
		requireRules(t, ns, want)

		fw.remove(t, ns)
		requireNoFirewall(t, ns)
		require.Equal(t, []string{"-N DOCKER-USER", "-A DOCKER-USER -j RETURN"}, iptablesS(t, ns, "DOCKER-USER"),
			"remove leaves Docker's chain as it was")
		require.Equal(t, []string{"-P INPUT ACCEPT"}, iptablesS(t, ns, "INPUT"), "remove leaves INPUT as it was")
	})
	if t.Failed() {
		return
	}

	t.Run("probes", func(t *testing.T) {
		rt := docker.New(cli, docker.Options{StopGrace: time.Second, WithoutGPUs: true})
		require.NoError(t, importBusybox(cli))
		// No other job network comes or goes while it probes.
		dockertest.Alone(t)
		waitForOtherJobs(t, cli)

		// Job A probes; job B listens on 8080 inside its container.
		a := startEgressJob(t, rt, "sleep", "3600")
		b := startEgressJob(t, rt, "sh", "-c", "while true; do nc -l -p 8080 </dev/null; done")
		aEP := jobEndpoint(t, cli, a)
		bEP := jobEndpoint(t, cli, b)
		t.Logf("engine %s: job A %s on %s (gateway %s), job B %s on %s", host, aEP.addr, aEP.subnet, aEP.gateway, bEP.addr, bEP.subnet)
		require.NotEqual(t, aEP.subnet, bEP.subnet, "two job networks")
		pool := netip.MustParsePrefix(docker.SubnetPool)
		for _, ep := range []endpoint{aEP, bEP} {
			require.True(t, pool.Contains(ep.subnet.Addr()), "job subnet %s in the pool the firewall covers", ep.subnet)
			require.True(t, netip.MustParsePrefix("10.0.0.0/8").Contains(ep.addr), "job address %s in 10.0.0.0/8", ep.addr)
		}

		// The test's listener on the host side of job A's bridge.
		ln, err := net.Listen("tcp", net.JoinHostPort(aEP.gateway.String(), "0"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = ln.Close() })
		go func() {
			for {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				_ = conn.Close()
			}
		}()
		gwPort := ln.Addr().(*net.TCPAddr).Port

		// Job B listens: the host reaches it (the host is outside the pool).
		await.True(t, func() bool {
			conn, err := net.DialTimeout("tcp", net.JoinHostPort(bEP.addr.String(), "8080"), time.Second)
			if err == nil {
				_ = conn.Close()
			}
			return err == nil
		}, "job B listens on %s:8080", bEP.addr)

		toHost := func() probeResult { return probe(t, cli, a, aEP.gateway, gwPort) }
		toB := func() probeResult { return probe(t, cli, a, bEP.addr, 8080) }

		// Without the firewall: A reaches its bridge's host side; B only
		// through Docker's inter-network isolation, which drops silently.
		r := toHost()
		require.True(t, r.ok, "control: without the firewall job A reaches the host side of its bridge:\n%s", r)
		r = toB()
		require.False(t, r.ok, "Docker's own isolation keeps job A off job B's network:\n%s", r)
		require.Contains(t, r.out, "timed out", "without the firewall nothing rejects: Docker drops:\n%s", r)

		// The firewall, for job A's subnet.
		t.Cleanup(func() { fw.remove(t, "") })
		fw.install(t, "", aEP.subnet.String())
		narrowed := fw.wantChains(aEP.subnet.String())
		require.Equal(t, narrowed["GPUNEX-EGRESS"], iptablesS(t, "", "GPUNEX-EGRESS"))
		require.Equal(t, narrowed["GPUNEX-HOST"], iptablesS(t, "", "GPUNEX-HOST"))
		require.Equal(t, narrowed["DOCKER-USER"][1], iptablesS(t, "", "DOCKER-USER")[1],
			"the jump comes first in the engine's DOCKER-USER")
		require.Equal(t, narrowed["INPUT"][1], iptablesS(t, "", "INPUT")[1], "the jump comes first in INPUT")

		hostReject := counter(t, "GPUNEX-HOST", "-j REJECT --reject-with icmp-admin-prohibited")
		lanReject := counter(t, "GPUNEX-EGRESS", "-d 10.0.0.0/8 -j REJECT --reject-with icmp-admin-prohibited")

		r = toHost()
		require.False(t, r.ok, "GPUNEX-HOST keeps job A off the host:\n%s", r)
		require.Contains(t, r.out, "No route to host", "refused by an ICMP admin-prohibited, not timed out:\n%s", r)
		require.Greater(t, counter(t, "GPUNEX-HOST", "-j REJECT --reject-with icmp-admin-prohibited"), hostReject,
			"GPUNEX-HOST's REJECT counted job A's connection")

		r = toB()
		require.False(t, r.ok, "GPUNEX-EGRESS keeps job A off job B (10.0.0.0/8):\n%s", r)
		require.Contains(t, r.out, "No route to host", "refused by an ICMP admin-prohibited, not dropped:\n%s", r)
		require.Greater(t, counter(t, "GPUNEX-EGRESS", "-d 10.0.0.0/8 -j REJECT --reject-with icmp-admin-prohibited"), lanReject,
			"GPUNEX-EGRESS's 10.0.0.0/8 REJECT counted job A's connection")

		// Removed: back to the start.
		before := iptablesS(t, "", "DOCKER-USER")
		fw.remove(t, "")
		requireNoFirewall(t, "")
		require.Equal(t, append(before[:1:1], before[2:]...), iptablesS(t, "", "DOCKER-USER"),
			"remove takes out its jump and nothing else")
		r = toHost()
		require.True(t, r.ok, "after remove job A reaches the host side of its bridge again:\n%s", r)
	})
}

// firewallInstaller runs install.sh's install_firewall, as rendered by
// [installer.Script], with its documented variables pointing into a
// temporary directory, and a stand-in systemctl that records its calls.
type firewallInstaller struct {
	driver  string // sh script: the installer's functions, then install_firewall
	libDir  string
	unitDir string
	binDir  string
	env     []string
	ns      string // the nameserver of the test's resolv.conf
}

func newFirewallInstaller(t *testing.T) *firewallInstaller {
	t.Helper()
	script, err := installer.Script("https://gpunex.example.com", installer.DefaultAgentImage)
	require.NoError(t, err)
	text := string(script)

	// The script is one function, gpunex_install, called on its last line.
	// Its settings come first, up to the first blank line; the firewall
	// step (install_firewall, firewall_script_text) uses them.
	const call = "\ngpunex_install \"$@\"\n"
	require.True(t, strings.HasSuffix(text, call), "install.sh ends by calling gpunex_install")
	text = strings.TrimSuffix(text, call)
	start := strings.Index(text, "\ngpunex_install() {\n")
	require.GreaterOrEqual(t, start, 0, "install.sh defines gpunex_install")
	settings, _, ok := strings.Cut(text[start+len("\ngpunex_install() {\n"):], "\n\n")
	require.True(t, ok)
	require.Regexp(t, `(?m)^\tjob_pool=`+regexp.QuoteMeta(docker.SubnetPool)+`$`, settings,
		"the installer's job pool is the agent's docker.SubnetPool")
	require.Contains(t, settings, "\tfirewall_script=\"$lib_dir/egress-firewall\"")
	require.Contains(t, settings, "\tlib_dir=${GPUNEX_LIB_DIR:-/usr/local/lib/gpunex}")

	dir := t.TempDir()
	f := &firewallInstaller{
		driver:  filepath.Join(dir, "install-firewall.sh"),
		libDir:  filepath.Join(dir, "lib"),
		unitDir: filepath.Join(dir, "systemd"),
		binDir:  filepath.Join(dir, "bin"),
		// TEST-NET-1 (RFC 5737): an address nothing answers, never probed.
		ns: "192.0.2.53",
	}
	// GPUNEX_TEST_JOB_POOL narrows the pool for the probes on the host.
	driver := text + "\ngpunex_test_install_firewall() {\n" + settings + "\n" +
		"\t[ -z \"${GPUNEX_TEST_JOB_POOL:-}\" ] || job_pool=$GPUNEX_TEST_JOB_POOL\n" +
		"\tinstall_firewall\n}\n\ngpunex_test_install_firewall\n"
	require.NoError(t, os.WriteFile(f.driver, []byte(driver), 0o600))
	require.NoError(t, os.MkdirAll(f.binDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(f.binDir, "systemctl"),
		[]byte("#!/bin/sh\nprintf '%s\\n' \"$*\" >>\""+filepath.Join(dir, "systemctl.log")+"\"\n"), 0o755))
	// A resolv.conf of the test's, so the DNS exceptions are known: the
	// loopback resolver and the repeated line add nothing.
	resolv := filepath.Join(dir, "resolv.conf")
	require.NoError(t, os.WriteFile(resolv, []byte("nameserver 127.0.0.53\nnameserver "+f.ns+"\nnameserver "+f.ns+"\n"), 0o644))
	f.env = append(os.Environ(),
		"PATH="+f.binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GPUNEX_LIB_DIR="+f.libDir,
		"GPUNEX_SYSTEMD_UNIT_DIR="+f.unitDir,
		"GPUNEX_RESOLV_CONFS="+resolv,
	)
	return f
}

// install runs the installer's firewall step, in network namespace ns
// ("" is the host's), for the installer's pool or, when pool is not "",
// for pool.
func (f *firewallInstaller) install(t *testing.T, ns, pool string) {
	t.Helper()
	cmd := inNetns(ns, "sh", f.driver)
	cmd.Env = append(f.env, "GPUNEX_TEST_JOB_POOL="+pool)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "install_firewall:\n%s", out)
	require.Contains(t, string(out), "ok: jobs (", "the installer reports the firewall:\n%s", out)
	script, err := os.ReadFile(filepath.Join(f.libDir, "egress-firewall"))
	require.NoError(t, err)
	wantPool := pool
	if wantPool == "" {
		wantPool = docker.SubnetPool
	}
	require.Contains(t, string(script), "\npool="+wantPool+"\n")
}

// remove runs the written script's remove mode, as the installer tells
// the provider to.
func (f *firewallInstaller) remove(t *testing.T, ns string) {
	t.Helper()
	cmd := inNetns(ns, "sh", filepath.Join(f.libDir, "egress-firewall"), "remove")
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "egress-firewall remove:\n%s", out)
}

// requireUnit checks the systemd unit the installer wrote applies the
// script, and that it enabled it.
func (f *firewallInstaller) requireUnit(t *testing.T) {
	t.Helper()
	unit, err := os.ReadFile(filepath.Join(f.unitDir, "gpunex-egress.service"))
	require.NoError(t, err)
	require.Contains(t, string(unit), "ExecStart=/bin/sh "+filepath.Join(f.libDir, "egress-firewall")+" apply\n")
	calls, err := os.ReadFile(filepath.Join(filepath.Dir(f.driver), "systemctl.log"))
	require.NoError(t, err)
	require.Equal(t, "daemon-reload\nenable --now gpunex-egress.service\n", string(calls))
}

// wantChains is what docs/agent.md promises, as `iptables -S` lists it, for
// jobs in pool: DNS to the host's nameservers, nothing to private,
// shared or link-local addresses, nothing to the host but replies, the
// jumps first. DOCKER-USER and INPUT are those of the test's namespace.
func (f *firewallInstaller) wantChains(pool string) map[string][]string {
	egress := []string{"-N GPUNEX-EGRESS",
		"-A GPUNEX-EGRESS -d " + f.ns + "/32 -p udp -m udp --dport 53 -j RETURN",
		"-A GPUNEX-EGRESS -d " + f.ns + "/32 -p tcp -m tcp --dport 53 -j RETURN",
	}
	for _, dst := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16"} {
		egress = append(egress, "-A GPUNEX-EGRESS -d "+dst+" -j REJECT --reject-with icmp-admin-prohibited")
	}
	return map[string][]string{
		"GPUNEX-EGRESS": egress,
		"GPUNEX-HOST": {"-N GPUNEX-HOST",
			"-A GPUNEX-HOST -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN",
			"-A GPUNEX-HOST -d " + f.ns + "/32 -p udp -m udp --dport 53 -j RETURN",
			"-A GPUNEX-HOST -d " + f.ns + "/32 -p tcp -m tcp --dport 53 -j RETURN",
			"-A GPUNEX-HOST -j REJECT --reject-with icmp-admin-prohibited",
		},
		"DOCKER-USER": {"-N DOCKER-USER", "-A DOCKER-USER -s " + pool + " -j GPUNEX-EGRESS", "-A DOCKER-USER -j RETURN"},
		"INPUT":       {"-P INPUT ACCEPT", "-A INPUT -s " + pool + " -j GPUNEX-HOST"},
	}
}

// requireRules checks each chain lists exactly the promised rules, in
// order, each once.
func requireRules(t *testing.T, ns string, want map[string][]string) {
	t.Helper()
	for _, chain := range []string{"GPUNEX-EGRESS", "GPUNEX-HOST", "DOCKER-USER", "INPUT"} {
		require.Equal(t, want[chain], iptablesS(t, ns, chain), "iptables -S %s", chain)
	}
}

// requireNoFirewall checks neither GPUnex chain exists in network
// namespace ns ("" is the host's) and nothing jumps to one.
func requireNoFirewall(t *testing.T, ns string) {
	t.Helper()
	for _, chain := range []string{"GPUNEX-EGRESS", "GPUNEX-HOST"} {
		out, err := inNetns(ns, "iptables", "-w", "-S", chain).CombinedOutput()
		require.Error(t, err, "chain %s exists (an egress firewall is installed here; "+
			"remove it with `sh /usr/local/lib/gpunex/egress-firewall remove`):\n%s", chain, out)
	}
	for _, chain := range []string{"DOCKER-USER", "INPUT"} {
		for _, rule := range iptablesS(t, ns, chain) {
			require.NotContains(t, rule, "GPUNEX", "iptables -S %s", chain)
		}
	}
}

// iptablesS is `iptables -S chain`, line by line.
func iptablesS(t *testing.T, ns, chain string) []string {
	t.Helper()
	out, err := inNetns(ns, "iptables", "-w", "-S", chain).CombinedOutput()
	require.NoError(t, err, "iptables -S %s:\n%s", chain, out)
	// iptables-nft prints a comment line when iptables-legacy tables
	// exist too (anything that ran iptables-legacy once makes them): the
	// rules are the other lines.
	var rules []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(line, "#") {
			rules = append(rules, line)
		}
	}
	return rules
}

var counterRE = regexp.MustCompile(` -c (\d+) \d+`)

// counter is the packet count of the host's rule of chain that reads
// rule once its counters are taken out.
func counter(t *testing.T, chain, rule string) uint64 {
	t.Helper()
	out, err := exec.Command("iptables", "-w", "-S", chain, "-v").CombinedOutput()
	require.NoError(t, err, "iptables -S %s -v:\n%s", chain, out)
	for _, line := range strings.Split(string(out), "\n") {
		m := counterRE.FindStringSubmatch(line)
		if m == nil || counterRE.ReplaceAllString(line, "") != "-A "+chain+" "+rule {
			continue
		}
		n, err := strconv.ParseUint(m[1], 10, 64)
		require.NoError(t, err)
		return n
	}
	t.Fatalf("no rule %q in chain %s:\n%s", rule, chain, out)
	return 0
}

// newNetns creates a network namespace of the test's own, with a
// DOCKER-USER chain as Docker 20.10 leaves it (the firewall refuses to
// apply without one), removed when the test ends.
func newNetns(t *testing.T) string {
	t.Helper()
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	ns := "gpunex-egress-test-" + hex.EncodeToString(suffix)
	out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput()
	require.NoError(t, err, "ip netns add:\n%s", out)
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "delete", ns).CombinedOutput(); err != nil {
			t.Errorf("ip netns delete %s: %v\n%s", ns, err, out)
		}
	})
	for _, args := range [][]string{{"-N", "DOCKER-USER"}, {"-A", "DOCKER-USER", "-j", "RETURN"}, {"-A", "FORWARD", "-j", "DOCKER-USER"}} {
		out, err := inNetns(ns, "iptables", append([]string{"-w"}, args...)...).CombinedOutput()
		require.NoError(t, err, "iptables %v in %s:\n%s", args, ns, out)
	}
	return ns
}

// inNetns is the command run in network namespace ns, or on the host for "".
func inNetns(ns, name string, args ...string) *exec.Cmd {
	if ns == "" {
		return exec.Command(name, args...)
	}
	return exec.Command("ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// egressEngine is the test's Docker engine (dockertest.Host); the test
// skips when none answers.
func egressEngine(t *testing.T) (*client.Client, string) {
	t.Helper()
	cli, err := dockertest.Engine(context.Background())
	if err != nil {
		t.Skip(err.Error())
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli, dockertest.Host()
}

// egressImage is the busybox image the jobs run.
const egressImage = dockertest.Image

// importBusybox imports egressImage unless the engine has it.
func importBusybox(cli *client.Client) error {
	return dockertest.ImportImage(context.Background(), cli)
}

// startEgressJob starts a job of the busybox image with the agent's
// runtime, on a GPU UUID of its own, and stops it (container and network)
// when the test ends. The engine is shared with agent/job/docker's tests,
// whose runtime may take the subnet this one chose between its list and
// its create: such a start is tried again.
func startEgressJob(t *testing.T, rt *docker.Runtime, command ...string) string {
	t.Helper()
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	id := "egress-" + hex.EncodeToString(suffix)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := rt.Stop(ctx, id); err != nil {
			t.Errorf("stop job %s: %v", id, err)
		}
	})
	spec := job.Spec{ID: id, Image: egressImage, Command: command, GPUUUIDs: []string{"GPU-" + id},
		MemoryBytes: 64 << 20, PidsLimit: 32}
	var err error
	for attempt := 1; attempt <= 10; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err = rt.Start(ctx, spec)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "Pool overlaps") {
			break
		}
		t.Logf("start %s, attempt %d: %v", id, attempt, err)
		time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
	}
	require.NoError(t, err)
	return id
}

// waitForOtherJobs waits, a minute at most, until the engine has held no
// job network for a second. agent/job/docker's tests, which go test runs
// in parallel with these, start jobs with a runtime of their own on this
// engine; two runtimes can pick one subnet at once, and the engine then
// refuses one of the networks ("Pool overlaps"), failing their tests.
func waitForOtherJobs(t *testing.T, cli *client.Client) {
	t.Helper()
	began := time.Now()
	quietSince := began
	for time.Since(quietSince) < time.Second {
		if time.Since(began) > time.Minute {
			t.Log("other jobs kept running for a minute: starting the test's jobs next to them")
			return
		}
		res, err := cli.NetworkList(context.Background(), client.NetworkListOptions{})
		require.NoError(t, err)
		for _, n := range res.Items {
			if n.Labels[job.LabelManaged] == "true" {
				quietSince = time.Now()
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if waited := time.Since(began) - time.Second; waited > 100*time.Millisecond {
		t.Logf("waited %v for other jobs on the engine to end", waited.Round(time.Millisecond))
	}
}

type endpoint struct {
	addr, gateway netip.Addr
	subnet        netip.Prefix
}

// jobEndpoint is the job container's address, gateway and subnet on its
// own network.
func jobEndpoint(t *testing.T, cli *client.Client, id string) endpoint {
	t.Helper()
	ctx := context.Background()
	name := docker.ContainerName(id)
	res, err := cli.ContainerInspect(ctx, name, client.ContainerInspectOptions{})
	require.NoError(t, err)
	ep := res.Container.NetworkSettings.Networks[name]
	require.NotNil(t, ep, "the container is on its job's network")
	nw, err := cli.NetworkInspect(ctx, name, client.NetworkInspectOptions{})
	require.NoError(t, err)
	require.Len(t, nw.Network.IPAM.Config, 1)
	return endpoint{addr: ep.IPAddress, gateway: ep.Gateway, subnet: nw.Network.IPAM.Config[0].Subnet}
}

type probeResult struct {
	ok   bool
	out  string
	took time.Duration
}

func (r probeResult) String() string {
	return fmt.Sprintf("ok=%v after %v: %s", r.ok, r.took.Round(time.Millisecond), r.out)
}

// probe connects from inside the job's container to addr:port with
// busybox nc (at most 30 s, see below), through the engine's exec.
func probe(t *testing.T, cli *client.Client, id string, addr netip.Addr, port int) probeResult {
	t.Helper()
	ctx := t.Context()
	// nc gives up after 8 s: a REJECT's ICMP answer ends the attempt at
	// once, but the kernel rate-limits the ICMP it sends to one peer (and
	// in all), so on a busy machine the first SYN's answer may be
	// suppressed; the retransmitted SYNs (at 1, 3 and 7 s) get theirs. With
	// 2 s a busy pass saw a REJECT as "timed out". A DROP still times out.
	// A busy pass once saw nc -w 8 against a DROP not return at all: the
	// exec ended only with the container, 5 minutes on. busybox timeout
	// bounds it (SIGKILL, which nothing blocks): killed, it had no answer
	// in 30 s, which is what a drop is.
	cmd := fmt.Sprintf("busybox timeout -s KILL 30 nc -w 8 %s %d </dev/null 2>&1; echo rc=$?", addr, port)
	ex, err := cli.ExecCreate(ctx, docker.ContainerName(id), client.ExecCreateOptions{
		Cmd: []string{"sh", "-c", cmd}, AttachStdout: true, AttachStderr: true})
	require.NoError(t, err)
	began := time.Now()
	att, err := cli.ExecAttach(ctx, ex.ID, client.ExecAttachOptions{})
	require.NoError(t, err)
	defer att.Close()
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, att.Reader); err != nil && !errors.Is(err, io.EOF) {
		require.NoError(t, err)
	}
	took := time.Since(began)
	text := strings.TrimSpace(out.String())
	if strings.HasSuffix(text, "rc=137") {
		text += " (nc killed: no answer in 30 s, timed out)"
	}
	t.Logf("job %s: %s -> %s (%v)", id, cmd, strings.ReplaceAll(text, "\n", " | "), took.Round(time.Millisecond))
	return probeResult{ok: strings.HasSuffix(text, "rc=0"), out: text, took: took}
}
