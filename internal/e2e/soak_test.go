package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/simagent"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/proxytest"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// soakConfig is one soak: the fleet, its watchers and customers, how long
// it runs and the faults it goes through.
type soakConfig struct {
	Name                               string
	Providers, AgentsPerProvider, GPUs int // GPUs per agent
	Dashboards, Customers              int
	Duration, Interval                 time.Duration
	Hold                               [2]time.Duration // a customer keeps a rental this long, at random
	CutAgents                          int              // agents behind the proxy the "agents-cut" drill cuts
	Ramp                               time.Duration    // the agents start spread over it
	Drills                             []soakDrill
	SetupConcurrency                   int
	MeteringEvery, TelemetryEvery      time.Duration
}

// soakDrill is a fault at a stated time after the load started.
type soakDrill struct {
	Kind string        // redis-restart, postgres-restart, leader-kill, payout-leader-kill, agents-cut, rolling-restart
	At   time.Duration // after the load started
	For  time.Duration // how long the dependency stays away (postgres-restart, agents-cut)
}

// shortSoak runs in make test: 100 agents for a minute on two
// replicas, through one Redis restart, one leader kill while metering
// ticks and one kill of the replica leading the payout runs mid-transfer.
var shortSoak = soakConfig{
	Name: "short", Providers: 5, AgentsPerProvider: 20, GPUs: 1, Dashboards: 20, Customers: 10,
	Duration: time.Minute, Interval: 3 * time.Second, Hold: [2]time.Duration{3 * time.Second, 12 * time.Second}, Ramp: 20 * time.Second,
	Drills: []soakDrill{
		{Kind: "redis-restart", At: 15 * time.Second},
		{Kind: "leader-kill", At: 30 * time.Second},
		{Kind: "payout-leader-kill", At: 42 * time.Second},
	},
	SetupConcurrency: 4, MeteringEvery: time.Second, TelemetryEvery: 5 * time.Second,
}

// fullSoak is make soak's: ten thousand simulated GPUs at the default
// heartbeat interval, a thousand dashboards, a hundred customers, ten
// minutes, every drill.
var fullSoak = soakConfig{
	Name: "full", Providers: 100, AgentsPerProvider: 25, GPUs: 4, Dashboards: 1000, Customers: 100,
	Duration: 10 * time.Minute, Interval: 10 * time.Second, Hold: [2]time.Duration{20 * time.Second, 90 * time.Second},
	CutAgents: 100, Ramp: 2 * time.Minute,
	Drills: []soakDrill{
		{Kind: "redis-restart", At: 2 * time.Minute},
		{Kind: "postgres-restart", At: 3 * time.Minute, For: 10 * time.Second},
		{Kind: "leader-kill", At: 4 * time.Minute},
		{Kind: "agents-cut", At: 5 * time.Minute, For: 90 * time.Second},
		{Kind: "payout-leader-kill", At: 7 * time.Minute},
		{Kind: "rolling-restart", At: 8 * time.Minute},
	},
	SetupConcurrency: 8, MeteringEvery: 30 * time.Second, TelemetryEvery: 5 * time.Second,
}

// soakConfigFromEnv picks the soak: GPUNEX_SOAK=full is make soak's;
// GPUNEX_SOAK_AGENTS, _GPUS, _DASHBOARDS, _CUSTOMERS and _MINUTES scale
// it (a smaller machine, a quicker look).
func soakConfigFromEnv(t *testing.T) soakConfig {
	cfg := shortSoak
	if os.Getenv("GPUNEX_SOAK") == "full" {
		cfg = fullSoak
	}
	num := func(name string, into *int) {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			require.NoError(t, err, name)
			*into = n
		}
	}
	agents := cfg.Providers * cfg.AgentsPerProvider
	num("GPUNEX_SOAK_AGENTS", &agents)
	cfg.AgentsPerProvider = max(1, agents/cfg.Providers)
	num("GPUNEX_SOAK_GPUS", &cfg.GPUs)
	num("GPUNEX_SOAK_DASHBOARDS", &cfg.Dashboards)
	num("GPUNEX_SOAK_CUSTOMERS", &cfg.Customers)
	if v := os.Getenv("GPUNEX_SOAK_MINUTES"); v != "" {
		m, err := strconv.ParseFloat(v, 64)
		require.NoError(t, err, "GPUNEX_SOAK_MINUTES")
		scale := m * float64(time.Minute) / float64(cfg.Duration)
		cfg.Duration = time.Duration(m * float64(time.Minute))
		drills := make([]soakDrill, len(cfg.Drills))
		for i, d := range cfg.Drills {
			d.At = time.Duration(float64(d.At) * scale)
			drills[i] = d
		}
		cfg.Drills = drills
	}
	// GPUNEX_SOAK_DRILLS=none runs without drills (a steady run, for the
	// memory and goroutine slopes of one process over the whole run); a
	// comma-separated list of kinds keeps those.
	if v, ok := os.LookupEnv("GPUNEX_SOAK_DRILLS"); ok {
		keep := strings.Split(v, ",")
		var drills []soakDrill
		for _, d := range cfg.Drills {
			if slices.Contains(keep, d.Kind) {
				drills = append(drills, d)
			}
		}
		if v != "none" && len(drills) != len(keep) {
			t.Fatalf("GPUNEX_SOAK_DRILLS=%q: the %s soak's drills are %v, or none", v, cfg.Name, drillKinds(cfg.Drills))
		}
		cfg.Drills = drills
	}
	return cfg
}

func drillKinds(ds []soakDrill) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Kind
	}
	return out
}

// TestTheFleetSoaksThroughFaultsAndTheMoneyComesOutRight runs the fleet
// against two gpunex serve replicas on PostgreSQL and Redis behind a load
// balancer, with dashboards following it and customers renting, through
// the drills, then checks the invariants and writes the report.
func TestTheFleetSoaksThroughFaultsAndTheMoneyComesOutRight(t *testing.T) {
	t.Parallel()
	cfg := soakConfigFromEnv(t)
	s := startSoak(t, cfg)
	s.setUp()
	s.load()
	s.drillAll()
	s.settle()
	s.check()
	s.afterLoad()
	s.writeReport()
	for name, verdict := range s.report.Invariants {
		require.Equal(t, "ok", verdict, "invariant %s", name)
	}
}

// liveDashboards counts the dashboards subscribed now.
func (s *soak) liveDashboards() int {
	n := 0
	for _, d := range s.dashboards {
		if d.live() {
			n++
		}
	}
	return n
}

// replica is one gpunex serve process, restartable on its port.
type replica struct {
	name, addr string
	// metricsAddr is its private address (--metrics-addr): /metrics and
	// Go's profiles.
	metricsAddr string
	appName     string // its application_name on PostgreSQL
	args        []string
	mu          sync.Mutex // proc, which the sampler reads while a drill replaces it
	proc        *process
}

// metrics is the URL of its Prometheus series.
func (r *replica) metrics() string { return "http://" + r.metricsAddr + "/metrics" }

// pid is the running process's id, 0 when it is not running.
func (r *replica) pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil || r.proc.exited.Load() {
		return 0
	}
	return r.proc.cmd.Process.Pid
}

type soak struct {
	t        *testing.T
	cfg      soakConfig
	bin      string
	dir      string
	redis    *redistest.Server
	pg       *proxytest.Proxy
	db       *store.DB // the harness's own connection, for the checks
	replicas []*replica
	front    *proxytest.Remote  // the load balancer, a process of its own
	cutFront *proxytest.Remote  // the same, for the agents the cut drill cuts
	node     *solanatest.Server // the Solana node the replicas pay through
	nextBin  string             // the rolling restart's new build
	admin    *gql
	wire     *agentWire

	providers     []soakProvider
	dashboards    []*dashboard
	customers     []*gql
	byEmail       map[string]*gql // the customers, by email
	rentals       sync.Map        // rental id → the customer who started it
	started       time.Time
	stopLoad      context.CancelFunc
	loadDone      sync.WaitGroup
	agentsDone    sync.WaitGroup
	stopAgents    context.CancelFunc
	stopCustomers context.CancelFunc
	customersDone sync.WaitGroup
	agentErrs     outcomes
	dashboardEnds outcomes // why dashboards' sockets ended, all together
	customer      outcomes // what customers were answered
	report        soakReport
	samples       []replicaSample
	sampleMu      sync.Mutex
}

type soakProvider struct {
	email, token, agentToken string
	wallet                   string // its payout method
	machines                 []string
}

func startSoak(t *testing.T, cfg soakConfig) *soak {
	bin, _ := binaries(t)
	s := &soak{t: t, cfg: cfg, bin: bin, dir: t.TempDir(), wire: &agentWire{base: &http.Transport{MaxIdleConnsPerHost: 4096, MaxConnsPerHost: 0}}}
	s.report.Config = cfg
	s.raiseFileLimit(uint64(16 * (cfg.Providers*cfg.AgentsPerProvider + cfg.Dashboards + cfg.Customers)))
	if s.drilled("rolling-restart") {
		s.buildNext()
	}
	s.redis = redistest.Start(t, 0)
	direct := storetest.PostgresURL(t)
	db, err := store.Open(context.Background(), store.Config{DatabaseURL: direct})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	s.db = db
	u, err := url.Parse(direct)
	require.NoError(t, err)
	s.pg = proxytest.Start(t, u.Host)
	schema := u.Query().Get("search_path")
	chain := s.startChain()
	for _, name := range []string{"a", "b"} {
		ru := *u
		ru.Host = s.pg.Addr()
		q := ru.Query()
		q.Set("application_name", "soak-"+schema+"-"+name)
		ru.RawQuery = q.Encode()
		r := &replica{name: name, appName: q.Get("application_name"), addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.FreePort(t))),
			metricsAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.FreePort(t)))}
		r.args = []string{"serve", "--addr", r.addr, "--data-dir", filepath.Join(s.dir, "replica-"+name),
			"--database-url", ru.String(), "--redis-url", s.redis.URL(), "--redis-prefix", "soak:",
			"--demo", "--demo-agents=false", "--log-level", "warn", "--metrics-addr", r.metricsAddr,
			"--heartbeat-interval", cfg.Interval.String(), "--metering-every", cfg.MeteringEvery.String(),
			"--telemetry-every", cfg.TelemetryEvery.String(),
			// Every client comes from loopback through the balancer; each
			// says who it is in X-Forwarded-For, as behind a real proxy.
			"--trusted-proxies", "127.0.0.1/32", "--ws-max-per-address", "-1", "--ws-max-per-user", "-1"}
		r.args = append(r.args, chain...)
		s.replicas = append(s.replicas, r)
	}
	// One after the other: the first seeds the demo world (the admin).
	for _, r := range s.replicas {
		s.startReplica(r)
	}
	// The balancers run as processes of their own, as an operator's do:
	// holding two descriptors per client connection, in this process
	// they took the harness past this machine's file limit at full size.
	s.front = proxytest.StartProcess(t, s.replicas[0].addr, s.replicas[1].addr)
	s.cutFront = proxytest.StartProcess(t, s.replicas[0].addr, s.replicas[1].addr)
	s.admin = s.client("http://"+s.front.Addr(), "", "198.51.100.1")
	s.logIn(s.admin, "admin@gpunex.demo", "gpunex-demo")
	return s
}

// startReplica starts r and waits until it is ready.
//
// A replica that exits before it is ready is reaped, its exit and last
// lines kept in the report, and started again, as its supervisor would,
// at most maxReplicaStarts times. Waiting for the readiness of a process
// that had died once hung a busy make test for 45 minutes with nothing
// said of why.
func (s *soak) startReplica(r *replica) {
	s.t.Helper()
	for attempt := 1; ; attempt++ {
		p := start(s.t, s.bin, r.args...)
		s.keepLog(p, "replica-"+r.name)
		r.mu.Lock()
		r.proc = p
		r.mu.Unlock()
		died := false
		await.True(s.t, func() bool {
			if exitedUnreaped(p.cmd.Process.Pid) {
				died = true
				return true
			}
			res, err := http.Get("http://" + r.addr + "/readyz")
			if err != nil {
				return false
			}
			_ = res.Body.Close()
			return res.StatusCode == http.StatusOK
		}, "replica "+r.name+" is not ready")
		if !died {
			return
		}
		p.wait()
		failure := fmt.Sprintf("replica %s exited before it was ready (%s, start %d); its last lines:\n%s", r.name, p.cmd.ProcessState, attempt, lastLines(p.output(), 20))
		s.report.ReplicaStartFailures = append(s.report.ReplicaStartFailures, failure)
		s.t.Log("soak: " + failure)
		require.Less(s.t, attempt, maxReplicaStarts, "soak: %s", failure)
	}
}

// maxReplicaStarts is how many times startReplica starts a replica that
// keeps exiting before it is ready.
const maxReplicaStarts = 3

// exitedUnreaped says whether process pid has exited and waits to be
// reaped (a zombie), without reaping it: the process's own wait does.
func exitedUnreaped(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// pid (comm) state ...: the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func (s *soak) client(base, token, forwardedFor string) *gql {
	return &gql{url: base, token: token, forwardedFor: forwardedFor, http: &http.Client{Timeout: time.Minute}}
}

// must runs a request on the test's goroutine and requires it answered.
// The admin approving a hundred providers and crediting a hundred
// customers in a row passes the write limit (auth.DefaultLimits.Writes
// within its WriteWindow, a fixed window that starts at the first write
// and that refused writes do not extend): told RATE_LIMITED, the set-up
// asks again, await pacing it, until the window has passed.
func (s *soak) must(c *gql, v any, query string, vars map[string]any) {
	s.t.Helper()
	var a gqlAnswer
	await.True(s.t, func() bool {
		a = c.do(context.Background(), query, vars)
		return !slices.Contains(a.Codes, "RATE_LIMITED")
	}, "still rate limited: "+query)
	require.NoError(s.t, a.into(v), "%s", query)
}

// change runs a mutation whose payload asks only for userErrors and
// requires it accepted.
func (s *soak) change(c *gql, query string, vars map[string]any) {
	s.t.Helper()
	var payloads map[string]struct {
		UserErrors []struct{ Field, Code string }
	}
	s.must(c, &payloads, query, vars)
	require.NotEmpty(s.t, payloads, "%s", query)
	for name, p := range payloads {
		require.Empty(s.t, p.UserErrors, "%s", name)
	}
}

func (s *soak) logIn(c *gql, email, password string) {
	s.t.Helper()
	var li struct{ LogIn struct{ Token *string } }
	s.must(c, &li, `mutation($e: String!, $p: String!) { logIn(input: {email: $e, password: $p}) { token } }`, map[string]any{"e": email, "p": password})
	require.NotNil(s.t, li.LogIn.Token, "%s logs in", email)
	c.token = *li.LogIn.Token
}

// signUp makes an account as a person does, the confirmation link read
// from the outbox, and signs c in.
func (s *soak) signUp(c *gql, email, name string) {
	s.t.Helper()
	var su struct {
		SignUp struct{ ConfirmationSent bool }
	}
	s.must(c, &su, platformtest.SignUpMutation, map[string]any{"input": map[string]any{"email": email, "password": "correct horse battery", "name": name}})
	require.True(s.t, su.SignUp.ConfirmationSent)
	var body string
	await.True(s.t, func() bool {
		return s.db.NewSelect().Table("email_outbox").Column("text_body").Where("to_address = ?", auth.NormalizeEmail(email)).
			Where("kind = ?", auth.MailKindConfirmEmail).OrderExpr("id DESC").Limit(1).Scan(context.Background(), &body) == nil
	}, "no confirmation email to "+email)
	var ce struct{ ConfirmEmail struct{ Token *string } }
	s.must(c, &ce, platformtest.ConfirmEmailMutation, map[string]any{"token": platformtest.TokenInMail(s.t, body)})
	require.NotNil(s.t, ce.ConfirmEmail.Token)
	c.token = *ce.ConfirmEmail.Token
}

// soakCities are where the providers are, in turn; each rental asks
// for one at random, so the earnings (and the payouts) spread over the
// providers rather than all going to the scheduler's first pick.
var soakCities = []string{"Lisbon", "Porto", "Braga", "Coimbra", "Faro", "Aveiro", "Evora", "Leiria", "Setubal", "Viseu"}

// setUp makes the providers (applied, approved, with a token and a price),
// the customers (credited by the admin) and the dashboards' sessions.
func (s *soak) setUp() {
	t := s.t
	began := time.Now()
	front := "http://" + s.front.Addr()
	for p := range s.cfg.Providers {
		email := fmt.Sprintf("soak-provider-%d@example.com", p)
		c := s.client(front, "", fmt.Sprintf("198.51.100.%d", 2+p%250))
		s.signUp(c, email, fmt.Sprintf("Soak Provider %d", p))
		var app struct {
			SubmitProviderApplication struct {
				Application struct{ ID string }
				UserErrors  []struct{ Field, Code string }
			}
		}
		city, country := soakCities[p%len(soakCities)], "PT"
		s.must(c, &app, `mutation($i: ProviderApplicationInput!) { submitProviderApplication(input: $i) { application { id } userErrors { field code } } }`,
			map[string]any{"i": map[string]any{"fullName": fmt.Sprintf("Soak Provider %d", p), "email": email, "upsProtected": true, "commitmentMonths": 12,
				"gpus": []map[string]any{{"modelKey": "H100_SXM_80GB", "quantity": s.cfg.AgentsPerProvider * s.cfg.GPUs, "ramGb": 256, "uploadGbps": 10.0, "downloadGbps": 10.0,
					"availability": map[string]any{"kind": "ALWAYS"}, "location": map[string]any{"city": city, "country": country}}}}})
		require.Empty(t, app.SubmitProviderApplication.UserErrors)
		s.change(s.admin, `mutation($id: ID!) { approveProviderApplication(id: $id, tier: COMMUNITY) { userErrors { field code } } }`,
			map[string]any{"id": app.SubmitProviderApplication.Application.ID})
		// The approval is a new role: sign in again for a session that has it.
		s.logIn(c, email, "correct horse battery")
		var ct struct{ CreateAgentToken struct{ Token string } }
		s.must(c, &ct, `mutation { createAgentToken(name: "soak") { token } }`, nil)
		s.change(c, `mutation { setGpuPrice(input: {model: "H100_SXM_80GB", pricePerHour: "2.000000"}) { userErrors { field code } } }`, nil)
		sp := soakProvider{email: email, token: c.token, agentToken: ct.CreateAgentToken.Token}
		s.setPayoutMethod(c, &sp)
		for a := range s.cfg.AgentsPerProvider {
			sp.machines = append(sp.machines, fmt.Sprintf("soak-m%05d", p*s.cfg.AgentsPerProvider+a))
		}
		s.providers = append(s.providers, sp)
	}
	for i := range s.cfg.Customers {
		email := fmt.Sprintf("soak-customer-%d@example.com", i)
		c := s.client(front, "", fmt.Sprintf("203.0.113.%d", 1+i%250))
		s.signUp(c, email, fmt.Sprintf("Soak Customer %d", i))
		s.change(s.admin, `mutation($e: String!, $r: String!) { creditFunds(input: {email: $e, amount: "100000.000000", reference: $r, reason: "soak"}) { userErrors { field code } } }`,
			map[string]any{"e": email, "r": "soak-" + email})
		s.customers = append(s.customers, c)
		if s.byEmail == nil {
			s.byEmail = map[string]*gql{}
		}
		s.byEmail[email] = c
	}
	wsURL := "ws://" + s.front.Addr() + "/graphql"
	for i := range s.cfg.Dashboards {
		p := s.providers[i%len(s.providers)]
		s.dashboards = append(s.dashboards, &dashboard{wsURL: wsURL, token: p.token, forwardedFor: fmt.Sprintf("192.0.2.%d", 1+i%250), status: map[string]string{}, ended: &s.dashboardEnds})
	}
	s.report.SetupSeconds = time.Since(began).Seconds()
	t.Logf("soak %s: %d providers, %d customers set up in %s", s.cfg.Name, len(s.providers), len(s.customers), time.Since(began).Round(time.Second))
}

// load starts the agents, waits until every machine is online and every
// dashboard live, then starts the customers and the sampler.
func (s *soak) load() {
	t := s.t
	actx, stopAgents := context.WithCancel(context.Background())
	s.stopAgents = stopAgents
	t.Cleanup(func() { stopAgents(); s.agentsDone.Wait() })
	spec, err := gpu.ParseSimSpec(fmt.Sprintf("%dxH100", s.cfg.GPUs))
	require.NoError(t, err)
	httpc := &http.Client{Transport: s.wire}
	s.wire.machines = len(s.providers) * s.cfg.AgentsPerProvider
	s.sample() // the baseline, before any load
	began := time.Now()
	n := 0
	// The agents start over a ramp (new hosts come up over minutes, not
	// in one instant), each machine its own moment within it.
	total := len(s.providers) * s.cfg.AgentsPerProvider
	for _, p := range s.providers {
		for _, m := range p.machines {
			if s.cfg.Ramp > 0 {
				time.Sleep(s.cfg.Ramp / time.Duration(total))
			}
			front := s.front
			if n < s.cfg.CutAgents {
				front = s.cutFront
			}
			require.NoError(t, simagent.Start(actx, &s.agentsDone, simagent.Options{
				Server: "http://" + front.Addr(), Token: p.agentToken, MachineID: m, Hostname: m, AgentVersion: "soak",
				Spec: spec, DataDir: filepath.Join(s.dir, "agents", m), NetworkBytes: 256 << 10, StorageBytes: 256 << 10,
				// Thousands register in the ramp: 100 ms of eight readers
				// each would be 500 CPU-seconds at full size.
				StorageReadFor: 10 * time.Millisecond,
				HTTPClient:     httpc,
			}, func(err error) {
				if err != nil && actx.Err() == nil {
					s.agentErrs.add(err.Error())
				}
			}))
			n++
		}
	}
	lctx, stopLoad := context.WithCancel(context.Background())
	s.stopLoad = stopLoad
	t.Cleanup(func() { stopLoad(); s.loadDone.Wait() })
	for _, d := range s.dashboards {
		s.loadDone.Go(func() { d.run(lctx) })
	}
	await.True(t, func() bool { return s.onlineCount() == n }, lazy(func() string {
		hb := map[string]int{}
		for _, b := range s.wire.beats() {
			hb[b.outcome]++
		}
		return fmt.Sprintf("%d of %d machines came online; heartbeats %v, other agent requests %v, agents' errors %v",
			s.onlineCount(), n, hb, s.wire.other.snapshot(), s.agentErrs.snapshot())
	}))
	await.True(t, func() bool { return s.liveDashboards() == len(s.dashboards) }, lazy(func() string {
		return fmt.Sprintf("%d of %d dashboards are live; their sockets ended %v", s.liveDashboards(), len(s.dashboards), s.dashboardEnds.snapshot())
	}))
	s.report.RampSeconds = time.Since(began).Seconds()
	t.Logf("soak %s: %d machines online and %d dashboards live after %s", s.cfg.Name, n, len(s.dashboards), time.Since(began).Round(time.Second))
	s.started = time.Now()
	s.loadDone.Go(func() {
		for {
			select {
			case <-lctx.Done():
				return
			case <-time.After(5 * time.Second):
				s.sample()
			}
		}
	})
	cctx, stopCustomers := context.WithCancel(context.Background())
	s.stopCustomers = stopCustomers
	t.Cleanup(func() { stopCustomers(); s.customersDone.Wait() })
	for _, c := range s.customers {
		s.customersDone.Go(func() { s.rent(cctx, c) })
	}
}

// onlineCount is how many of the soak's machines the database says are
// online.
func (s *soak) onlineCount() int {
	n, err := s.db.NewSelect().Table("machines").Where("status = 'ONLINE'").Where("machine_uid LIKE 'soak-m%'").Count(context.Background())
	if err != nil {
		return -1
	}
	return int(n)
}

// rent is one customer: rent a GPU (the scheduler picks the machine),
// keep it a while, stop it; again until ctx ends. A refused or failed
// request is counted and tried again later, as a person would.
func (s *soak) rent(ctx context.Context, c *gql) {
	pause := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	hold := func() time.Duration {
		lo, hi := s.cfg.Hold[0], s.cfg.Hold[1]
		return lo + rand.N(hi-lo+1)
	}
	if !pause(rand.N(s.cfg.Hold[0] + 1)) {
		return
	}
	for ctx.Err() == nil {
		var st struct {
			StartRental struct {
				Rental     *struct{ ID string }
				UserErrors []struct{ Field, Code string }
			}
		}
		// A bounded job: one a killed run leaves behind ends by itself.
		// In a city of its choosing, as a customer near its data picks
		// one: the scheduler picks the machine there.
		a := c.do(ctx, `mutation($city: String!) { startRental(input: {model: "H100_SXM_80GB", filter: {region: $city}, gpuCount: 1, image: "busybox", command: ["sh", "-c", "i=0; while [ $i -lt 900 ]; do echo working; sleep 1; i=$((i+1)); done"]}) { rental { id } userErrors { field code } } }`,
			map[string]any{"city": soakCities[rand.N(len(soakCities))]})
		s.customer.add("startRental " + outcomeOf(a))
		if a.into(&st) == nil && st.StartRental.Rental != nil {
			s.rentals.Store(st.StartRental.Rental.ID, c)
		}
		if ctx.Err() != nil {
			return
		}
		if a.into(&st) != nil || st.StartRental.Rental == nil {
			if len(st.StartRental.UserErrors) > 0 {
				s.customer.add("startRental userError " + st.StartRental.UserErrors[0].Code)
			}
			if !pause(time.Second) {
				return
			}
			continue
		}
		id := st.StartRental.Rental.ID
		if !pause(hold()) {
			return
		}
		for ctx.Err() == nil {
			a := c.do(ctx, `mutation($id: ID!) { stopRental(id: $id) { userErrors { field code } } }`, map[string]any{"id": id})
			s.customer.add("stopRental " + outcomeOf(a))
			if a.ok() || ctx.Err() != nil {
				break
			}
			if !pause(time.Second) {
				return
			}
		}
	}
}

// keepLog copies what p writes from now on into a file beside the soak's
// report (GPUNEX_SOAK_REPORT's folder), name-<start>.log, as it is
// written: a run stopped from outside (its timeout, a stall looked at with
// SIGQUIT) still leaves each replica's log to read. Without a report path
// the output stays in memory, printed if the test fails.
func (s *soak) keepLog(p *process, name string) {
	report := os.Getenv("GPUNEX_SOAK_REPORT")
	if report == "" {
		return
	}
	f, err := os.Create(filepath.Join(filepath.Dir(report), fmt.Sprintf("soak-%s-%s.log", name, time.Now().Format("150405"))))
	if err != nil {
		s.t.Logf("soak: unable to keep the log of %s: %v", name, err)
		return
	}
	s.t.Cleanup(func() { _ = f.Close() })
	p.tee(f)
}

// A process that exited is told apart from one still running, without
// reaping it: its own wait still gets its exit status.
func TestExitedUnreapedSeesAnExitWithoutReapingIt(t *testing.T) {
	t.Parallel()
	running := exec.Command("sleep", "600")
	require.NoError(t, running.Start())
	t.Cleanup(func() { _ = running.Process.Kill(); _ = running.Wait() })
	require.False(t, exitedUnreaped(running.Process.Pid), "sleep runs")

	exited := exec.Command("sh", "-c", "exit 3")
	require.NoError(t, exited.Start())
	await.True(t, func() bool { return exitedUnreaped(exited.Process.Pid) }, "the exit is seen")
	var exit *exec.ExitError
	require.ErrorAs(t, exited.Wait(), &exit, "and left to its own wait")
	require.Equal(t, 3, exit.ExitCode())
	require.Equal(t, "b\nc", lastLines("a\nb\nc\n", 2))
}
