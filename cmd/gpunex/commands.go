package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bench"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/demo"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/installer"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/internal/platform"
	"github.com/gpunex/gpunex/internal/reliability"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// storageFlags are shared by every command that touches the database.
type storageFlags struct {
	dataDir     string
	databaseURL string
}

func (s *storageFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.dataDir, "data-dir", envOr("GPUNEX_DATA_DIR", "./data"), "directory for the SQLite database and local files (env GPUNEX_DATA_DIR)")
	fs.StringVar(&s.databaseURL, "database-url", os.Getenv("GPUNEX_DATABASE_URL"), "PostgreSQL URL, e.g. postgres://user@host/db; empty uses SQLite in the data dir (env GPUNEX_DATABASE_URL)")
}

type logFlags struct {
	level  string
	format string
}

func (l *logFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&l.level, "log-level", envOr("GPUNEX_LOG_LEVEL", "info"), "debug, info, warn or error (env GPUNEX_LOG_LEVEL)")
	fs.StringVar(&l.format, "log-format", envOr("GPUNEX_LOG_FORMAT", "text"), "text or json (env GPUNEX_LOG_FORMAT)")
}

// logger is configured once here and passed down; nothing reads a global.
func (l *logFlags) logger() (*slog.Logger, error) {
	var lv slog.LevelVar
	if err := lv.UnmarshalText([]byte(l.level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: &lv}
	switch l.format {
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json")
}

// apiFlags tune the HTTP surface of serve (api.Config).
type apiFlags struct {
	noIntrospect   bool
	allowedOrigins string
	secureCookies  bool
	maxSubs        int
	maxPerUser     int
	maxPerAddress  int
	messageRate    int
	trustedProxies string
	metricsAddr    string
}

func (a *apiFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&a.noIntrospect, "no-introspection", envBool("GPUNEX_NO_INTROSPECTION", false), "disable GraphQL introspection and GraphiQL, for production (env GPUNEX_NO_INTROSPECTION)")
	fs.StringVar(&a.allowedOrigins, "allowed-origins", os.Getenv("GPUNEX_ALLOWED_ORIGINS"), "extra comma-separated browser origins allowed to use WebSockets and the session cookie (env GPUNEX_ALLOWED_ORIGINS)")
	fs.BoolVar(&a.secureCookies, "secure-cookies", envBool("GPUNEX_SECURE_COOKIES", false), "mark the session cookie Secure (behind TLS) (env GPUNEX_SECURE_COOKIES)")
	fs.IntVar(&a.maxSubs, "ws-max-subscriptions", envInt("GPUNEX_WS_MAX_SUBSCRIPTIONS", 50), "operations (subscriptions) running at once on one WebSocket; one more is refused with RATE_LIMITED; -1 for no cap (env GPUNEX_WS_MAX_SUBSCRIPTIONS)")
	fs.IntVar(&a.maxPerUser, "ws-max-per-user", envInt("GPUNEX_WS_MAX_PER_USER", 16), "WebSockets one user holds open on this replica; one more is closed with 4429 at connection_init; -1 for no cap (env GPUNEX_WS_MAX_PER_USER)")
	fs.IntVar(&a.maxPerAddress, "ws-max-per-address", envInt("GPUNEX_WS_MAX_PER_ADDRESS", 64), "WebSockets open from one client address (an IPv6 /64) on this replica; one more is refused with 429; -1 for no cap (env GPUNEX_WS_MAX_PER_ADDRESS)")
	fs.IntVar(&a.messageRate, "ws-message-rate", envInt("GPUNEX_WS_MESSAGE_RATE", 20), "messages a second read from one WebSocket after a burst of as many; a flooding client's writes back up; -1 for no pacing (env GPUNEX_WS_MESSAGE_RATE)")
	fs.StringVar(&a.trustedProxies, "trusted-proxies", os.Getenv("GPUNEX_TRUSTED_PROXIES"), "comma-separated addresses or CIDR prefixes of reverse proxies whose X-Forwarded-For names the client (for sign-in limits and socket caps); empty trusts none (env GPUNEX_TRUSTED_PROXIES)")
	fs.StringVar(&a.metricsAddr, "metrics-addr", os.Getenv("GPUNEX_METRICS_ADDR"), "serve /metrics, and Go's profiles under /debug/pprof/, on this private address (e.g. 127.0.0.1:9090) instead of /metrics on the public one (env GPUNEX_METRICS_ADDR)")
}

// config is the api.Config the flags say.
func (a *apiFlags) config() (api.Config, error) {
	cfg := api.Config{
		Introspection: !a.noIntrospect, SecureCookies: a.secureCookies,
		WSMaxSubscriptions: a.maxSubs, WSMaxPerUser: a.maxPerUser, WSMaxPerAddress: a.maxPerAddress,
		WSMessageRate:   a.messageRate,
		SeparateMetrics: a.metricsAddr != "",
	}
	if a.allowedOrigins != "" {
		cfg.AllowedOrigins = strings.Split(a.allowedOrigins, ",")
	}
	for name, v := range map[string]int{"--ws-max-subscriptions": a.maxSubs, "--ws-max-per-user": a.maxPerUser, "--ws-max-per-address": a.maxPerAddress, "--ws-message-rate": a.messageRate} {
		if v == 0 || v < -1 {
			return api.Config{}, fmt.Errorf("%s must be positive, or -1 for no cap", name)
		}
	}
	if a.trustedProxies != "" {
		proxies, err := api.ParseTrustedProxies(strings.Split(a.trustedProxies, ","))
		if err != nil {
			return api.Config{}, fmt.Errorf("--trusted-proxies: %w", err)
		}
		cfg.TrustedProxies = proxies
	}
	return cfg, nil
}

// serveMetrics serves privateHandler(h) on addr until the returned stop
// is called.
func serveMetrics(addr string, h http.Handler, logger *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: unable to listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: privateHandler(h), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	logger.Info("gpunex: serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() { _ = srv.Close() }, nil
}

// privateHandler is what the private metrics address serves: the
// Prometheus series h at /metrics, and Go's runtime profiles under
// /debug/pprof/ (the heap an idle replica keeps, a CPU profile under
// load), which the public address never serves.
func privateHandler(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}

func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

// typedEnv are the environment variables that must parse as their type.
var typedEnv = map[string]func(string) error{
	"GPUNEX_DEMO":                 parseBool,
	"GPUNEX_DEMO_AGENTS":          parseBool,
	"GPUNEX_NO_INTROSPECTION":     parseBool,
	"GPUNEX_SECURE_COOKIES":       parseBool,
	"GPUNEX_HEARTBEAT_INTERVAL":   func(v string) error { _, err := time.ParseDuration(v); return err },
	"GPUNEX_WS_MAX_SUBSCRIPTIONS": parseInt,
	"GPUNEX_WS_MAX_PER_USER":      parseInt,
	"GPUNEX_WS_MAX_PER_ADDRESS":   parseInt,
	"GPUNEX_WS_MESSAGE_RATE":      parseInt,
}

func parseInt(v string) error { _, err := strconv.Atoi(v); return err }

func parseBool(v string) error { _, err := strconv.ParseBool(v); return err }

func checkEnv() error {
	var bad []string
	for key, parse := range typedEnv {
		if v, ok := os.LookupEnv(key); ok && v != "" {
			if parse(v) != nil {
				bad = append(bad, fmt.Sprintf("%s=%q is not valid", key, v))
			}
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return errors.New(strings.Join(bad, "; ") + " (booleans: true/false/1/0; durations: 10s, 1m; integers: 16)")
	}
	return nil
}

func envDuration(key string, def time.Duration) time.Duration {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
	}
	return def
}

func envInt(key string, def int) int {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

func envBool(key string, def bool) bool {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err == nil {
			return b
		}
	}
	return def
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "gpunex",
		Short:         "GPUnex: the GPU rental marketplace platform",
		SilenceUsage:  true,
		SilenceErrors: true,
		// A value that does not parse is refused, never silently replaced
		// by the default (GPUNEX_SECURE_COOKIES=yes must not mean false).
		PersistentPreRunE: func(*cobra.Command, []string) error { return checkEnv() },
	}
	root.AddCommand(newServeCommand(), newMigrateCommand(), newUserCommand())
	return root
}

// serveFlags are gpunex serve's flags.
type serveFlags struct {
	st          storageFlags
	lf          logFlags
	addr        string
	redisURL    string
	redisPrefix string
	publicURL   string
	smtpURL     string
	mailFrom    string
	agentImage  string
	hbInterval  time.Duration
	telEvery    time.Duration
	benchEvery  time.Duration
	benchCool   time.Duration
	benchRules  string
	feeBps      int
	pay         payoutFlags
	dep         depositFlags
	relEvery    time.Duration
	relFloor    int
	demoAgents  bool
	withDemo    bool
	af          apiFlags
}

func newServeCommand() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the platform: GraphQL API, WebSockets, web app, background work",
		RunE:  func(cmd *cobra.Command, _ []string) error { return f.serve(cmd) },
	}
	f.register(cmd.Flags())
	return cmd
}

// serve runs the platform until the command's context ends.
func (f *serveFlags) serve(cmd *cobra.Command) error {
	logger, err := f.lf.logger()
	if err != nil {
		return err
	}
	cfg, err := f.config(logger)
	if err != nil {
		return err
	}
	p, err := platform.New(cmd.Context(), cfg)
	if err != nil {
		return err
	}
	defer p.Close()
	if f.af.metricsAddr != "" {
		stop, err := serveMetrics(f.af.metricsAddr, p.Handler.Metrics(), logger)
		if err != nil {
			return err
		}
		defer stop()
	}
	if f.withDemo {
		// The demo world is not part of the platform: its machines are
		// agents, which the server proper never links.
		world := demo.World{Auth: p.Auth, Providers: p.Providers, Onboarding: p.Onboarding, Fleet: p.Fleet, Bench: p.Bench,
			Pricing: p.Pricing, Market: p.Market, Billing: p.Billing, Reliability: p.Reliability,
			DataDir: f.st.dataDir, Logger: logger}
		if err := world.Seed(cmd.Context()); err != nil {
			return err
		}
		if f.demoAgents {
			p.AddBackground(world.RunAgents)
		}
	}
	return p.Serve(cmd.Context(), func(url string) { f.announce(cmd, logger, url) })
}

// config checks the flags and turns them into the platform's
// configuration (and, with an RPC URL, the Solana client in it).
func (f *serveFlags) config(logger *slog.Logger) (platform.Config, error) {
	apiCfg, err := f.af.config()
	if err != nil {
		return platform.Config{}, err
	}
	billingCfg, solanaClient, err := f.pay.config(logger)
	if err != nil {
		return platform.Config{}, err
	}
	benchCfg := bench.Config{Every: f.benchEvery, Cooldown: f.benchCool}
	if f.benchRules != "" {
		t, err := bench.LoadThresholds(f.benchRules)
		if err != nil {
			return platform.Config{}, err
		}
		benchCfg.Thresholds = &t
	}
	cfg := platform.Config{
		Addr: f.addr, DataDir: f.st.dataDir, DatabaseURL: f.st.databaseURL, RedisURL: f.redisURL, RedisPrefix: f.redisPrefix,
		PublicURL: f.publicURL, SMTPURL: f.smtpURL, MailFrom: f.mailFrom, AgentImage: f.agentImage,
		// Simulated GPUs are the demo world's: a production server
		// refuses them at registration and never lists them.
		Fleet:       fleet.Config{Interval: f.hbInterval, TelemetryEvery: f.telEvery, AllowSimulated: f.withDemo},
		Bench:       benchCfg,
		Market:      market.Config{FeeBps: f.feeBps},
		Billing:     billingCfg,
		Deposit:     f.dep.config(),
		Reliability: reliability.Config{SnapshotEvery: f.relEvery, Floor: f.relFloor},
		Solana:      solanaClient,
		Logger:      logger, Clock: clock.Real{},
		API: apiCfg,
	}
	// Each package checks the values it owns; the flags are named here.
	for _, c := range []struct {
		flags string
		err   error
	}{
		{"--heartbeat-interval, --telemetry-every", cfg.Fleet.Validate()},
		{"--bench-every, --bench-cooldown", cfg.Bench.Validate()},
		{"--platform-fee-bps", cfg.Market.Validate()},
		{"--metering-every, --payout-every", cfg.Billing.Validate()},
		{"--deposit-follow-every, --deposit-expiry, --deposit-late-for", cfg.Deposit.Validate()},
		{"--reliability-every, --reliability-floor", cfg.Reliability.Validate()},
	} {
		if c.err != nil {
			return platform.Config{}, fmt.Errorf("%s: %w", c.flags, c.err)
		}
	}
	return cfg, nil
}

// announce says where the platform serves, on what, and the demo's
// accounts.
func (f *serveFlags) announce(cmd *cobra.Command, logger *slog.Logger, url string) {
	backend := "SQLite in " + f.st.dataDir
	if f.st.databaseURL != "" {
		backend = "PostgreSQL"
	}
	events := "in-process events"
	if f.redisURL != "" {
		events = "Redis events and presence"
	}
	logger.Info("gpunex: serving", "url", url, "database", backend, "events", events, "demo", f.withDemo)
	fmt.Fprintf(cmd.OutOrStdout(), "GPUnex is running at %s (GraphiQL: %s/graphiql)\n", url, url)
	if f.withDemo {
		fmt.Fprintf(cmd.OutOrStdout(), "Demo accounts (password %q): admin@gpunex.demo, provider@gpunex.demo, customer@gpunex.demo; applicants: applicant@gpunex.demo, info@gpunex.demo, rejected@gpunex.demo\n", demo.Password)
	}
}

// register declares the flags on fs, each with its environment variable.
func (f *serveFlags) register(fs *pflag.FlagSet) {
	f.st.register(fs)
	f.lf.register(fs)
	fs.StringVar(&f.addr, "addr", envOr("GPUNEX_ADDR", "127.0.0.1:8080"), "address to listen on (env GPUNEX_ADDR)")
	fs.StringVar(&f.redisPrefix, "redis-prefix", envOr("GPUNEX_REDIS_PREFIX", bus.DefaultPrefix), "namespace of every Redis key and channel (env GPUNEX_REDIS_PREFIX)")
	fs.StringVar(&f.redisURL, "redis-url", os.Getenv("GPUNEX_REDIS_URL"), "Redis URL for events and presence across replicas; empty keeps them in-process (env GPUNEX_REDIS_URL)")
	fs.StringVar(&f.publicURL, "public-url", os.Getenv("GPUNEX_PUBLIC_URL"), "URL providers and browsers reach this platform at, for links in emails and the install command; empty: http://<addr> (env GPUNEX_PUBLIC_URL)")
	fs.StringVar(&f.smtpURL, "smtp-url", os.Getenv("GPUNEX_SMTP_URL"), "SMTP server for email, e.g. smtp://user:pass@host:587 (smtps:// for implicit TLS); empty writes .eml files under <data-dir>/mail/outbox (env GPUNEX_SMTP_URL)")
	fs.StringVar(&f.mailFrom, "mail-from", envOr("GPUNEX_MAIL_FROM", mail.DefaultFrom), "sender of platform email (env GPUNEX_MAIL_FROM)")
	fs.StringVar(&f.agentImage, "agent-image", envOr("GPUNEX_AGENT_IMAGE", installer.DefaultAgentImage), "container image the agent installer starts (env GPUNEX_AGENT_IMAGE)")
	fs.DurationVar(&f.hbInterval, "heartbeat-interval", envDuration("GPUNEX_HEARTBEAT_INTERVAL", 10*time.Second), "how often agents send heartbeats; a machine is offline after 3 missed (env GPUNEX_HEARTBEAT_INTERVAL)")
	fs.DurationVar(&f.telEvery, "telemetry-every", envDuration("GPUNEX_TELEMETRY_EVERY", fleet.DefaultTelemetryEvery), "how often each machine's telemetry is pushed live to its provider's dashboards, at most (env GPUNEX_TELEMETRY_EVERY)")
	fs.DurationVar(&f.benchEvery, "bench-every", envDuration("GPUNEX_BENCH_EVERY", 24*time.Hour), "how often each machine is benchmarked, each at its own offset within a quarter of it (env GPUNEX_BENCH_EVERY)")
	fs.DurationVar(&f.benchCool, "bench-cooldown", envDuration("GPUNEX_BENCH_COOLDOWN", 10*time.Minute), "how long a provider waits between requested benchmarks of one machine (env GPUNEX_BENCH_COOLDOWN)")
	fs.StringVar(&f.benchRules, "bench-thresholds", os.Getenv("GPUNEX_BENCH_THRESHOLDS"), "JSON file of benchmark rules replacing the defaults metric by metric (see internal/bench; env GPUNEX_BENCH_THRESHOLDS)")
	fs.IntVar(&f.feeBps, "platform-fee-bps", envInt("GPUNEX_PLATFORM_FEE_BPS", market.DefaultFeeBps), "the platform's fee on rentals in basis points (1500 = 15 %); providers' earnings and price advice are after it (env GPUNEX_PLATFORM_FEE_BPS)")
	f.pay.register(fs)
	f.dep.register(fs)
	fs.DurationVar(&f.relEvery, "reliability-every", envDuration("GPUNEX_RELIABILITY_EVERY", time.Minute), "how often providers' reliability scores (what the marketplace ranks by) and today's snapshots are refreshed (env GPUNEX_RELIABILITY_EVERY)")
	fs.IntVar(&f.relFloor, "reliability-floor", envInt("GPUNEX_RELIABILITY_FLOOR", 70), "the reliability score under which a machine is flagged to its provider and admins (env GPUNEX_RELIABILITY_FLOOR)")
	fs.BoolVar(&f.withDemo, "demo", envBool("GPUNEX_DEMO", false), "seed the demo world; only then are agents with simulated GPUs (--simulate) taken (env GPUNEX_DEMO)")
	fs.BoolVar(&f.demoAgents, "demo-agents", envBool("GPUNEX_DEMO_AGENTS", true), "with --demo, run the demo provider's simulated agents in-process so the fleet is live (env GPUNEX_DEMO_AGENTS)")
	f.af.register(fs)
}

func openStore(ctx context.Context, st storageFlags) (*store.DB, error) {
	return store.Open(ctx, store.Config{DatabaseURL: st.databaseURL, DataDir: st.dataDir})
}

func newMigrateCommand() *cobra.Command {
	var st storageFlags
	cmd := &cobra.Command{
		Use:       "migrate up|down|status",
		Short:     "Apply, roll back (the last group) or list database migrations",
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"up", "down", "status"},
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := openStore(cmd.Context(), st)
			if err != nil {
				return err
			}
			defer db.Close()
			out := cmd.OutOrStdout()
			switch args[0] {
			case "up":
				names, err := db.MigrateUp(cmd.Context())
				if err != nil {
					return err
				}
				if len(names) == 0 {
					fmt.Fprintln(out, "nothing to migrate: the database is up to date")
				}
				for _, n := range names {
					fmt.Fprintln(out, "applied", n)
				}
			case "down":
				names, err := db.MigrateDown(cmd.Context())
				if err != nil {
					return err
				}
				if len(names) == 0 {
					fmt.Fprintln(out, "nothing to roll back")
				}
				for _, n := range names {
					fmt.Fprintln(out, "rolled back", n)
				}
			case "status":
				ms, err := db.MigrationStatus(cmd.Context())
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintf(tw, "MIGRATION\tSTATUS\t(%s)\n", db.Backend())
				for _, m := range ms {
					status := "pending"
					if m.Applied {
						status = fmt.Sprintf("applied (group %d)", m.GroupID)
					}
					fmt.Fprintf(tw, "%s\t%s\t\n", m.Name, status)
				}
				return tw.Flush()
			}
			return nil
		},
	}
	st.register(cmd.Flags())
	return cmd
}

func newUserCommand() *cobra.Command {
	user := &cobra.Command{Use: "user", Short: "Manage accounts"}
	var (
		st                    storageFlags
		email, password, name string
		admin                 bool
	)
	create := &cobra.Command{
		Use:   "create",
		Short: "Create an account (use --admin for the first administrator)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if password == "" {
				password = os.Getenv("GPUNEX_USER_PASSWORD")
			}
			db, err := openStore(cmd.Context(), st)
			if err != nil {
				return err
			}
			defer db.Close()
			if _, err := db.MigrateUp(cmd.Context()); err != nil {
				return err
			}
			svc := auth.New(auth.Deps{DB: db, Clock: clock.Real{}, Logger: slog.New(slog.DiscardHandler)}, auth.Config{})
			var roles []models.Role
			if admin {
				roles = append(roles, models.RoleAdmin)
			}
			if name == "" {
				name, _, _ = strings.Cut(email, "@")
			}
			u, err := svc.CreateUser(cmd.Context(), auth.SignUpInput{Email: email, Password: password, Name: name}, roles...)
			if err != nil {
				if v, ok := fault.AsValidation(err); ok {
					var msgs []string
					for _, p := range v.Problems {
						msgs = append(msgs, fmt.Sprintf("--%s: %s", p.Field, p.Message))
					}
					return errors.New(strings.Join(msgs, "; "))
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created user %d <%s> with roles %v\n", u.ID, u.Email, u.Roles)
			return nil
		},
	}
	fs := create.Flags()
	st.register(fs)
	fs.StringVar(&email, "email", "", "email address (required)")
	fs.StringVar(&password, "password", "", "password, at least 10 characters (or env GPUNEX_USER_PASSWORD, which keeps it out of shell history)")
	fs.StringVar(&name, "name", "", "display name (default: the part of the email before @)")
	fs.BoolVar(&admin, "admin", false, "grant the admin role")
	_ = create.MarkFlagRequired("email")
	user.AddCommand(create)
	return user
}
