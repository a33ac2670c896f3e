// Package platform assembles a GPUnex server from its configuration: the
// database, events and presence backends, the domain services, the
// GraphQL schema and the HTTP surface. cmd/gpunex calls it; so do the
// integration tests, which run the very same assembly over loopback.
package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alexedwards/argon2id"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/frontend"
	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bench"
	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/deposit"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/installer"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/pricing"
	"github.com/gpunex/gpunex/internal/provider"
	"github.com/gpunex/gpunex/internal/reliability"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/resolvers"
)

// Config is everything `gpunex serve` is told.
type Config struct {
	Addr        string
	DataDir     string
	DatabaseURL string
	RedisURL    string
	// RedisPrefix namespaces every Redis key and channel (default
	// bus.DefaultPrefix), so several deployments or test runs can share a
	// server.
	RedisPrefix string
	// PublicURL is where providers and browsers reach the platform (links
	// in emails, the install command). Empty: http://<Addr>, or the
	// request's own host for the installer.
	PublicURL string
	// SMTPURL sends email through an SMTP server
	// (smtp://user:pass@host:587?from=noreply@example.com); empty writes
	// each message as an .eml file under DataDir/mail/outbox.
	SMTPURL string
	// MailFrom is the sender address (default mail.DefaultFrom).
	MailFrom string
	// AgentImage is the container image the installer starts (default
	// installer.DefaultAgentImage).
	AgentImage string
	// Fleet tunes heartbeats and the offline sweeper, and says whether
	// simulated GPUs are taken (AllowSimulated: the demo world only).
	Fleet fleet.Config
	// Bench tunes the benchmarks' schedule and thresholds; BenchNetwork
	// bounds the network benchmark's endpoints per machine.
	Bench        bench.Config
	BenchNetwork api.BenchNetworkConfig
	// Pricing and Market tune prices and schedules, the marketplace and
	// rentals.
	Pricing pricing.Config
	Market  market.Config
	// Billing tunes metering, customer funds and payouts.
	Billing billing.Config
	// Deposit tunes customers' deposits in USDC on Solana (taken only
	// with Solana set).
	Deposit deposit.Config
	// Reliability tunes the reliability score (its floor).
	Reliability reliability.Config
	// Solana sends USDC payouts and receives deposits at the same
	// wallet; nil: payouts are MANUAL (an admin sends them and marks them
	// paid) and customers deposit by bank transfer only, so the embedded
	// default needs no node.
	Solana *solana.Client
	API    api.Config
	Logger *slog.Logger
	// Clock defaults to the real clock.
	Clock clock.Clock
	// PasswordParams default to auth.DefaultParams (tests pass cheap ones).
	PasswordParams *argon2id.Params
	// SPA overrides the embedded frontend (tests).
	SPA fs.FS
	// WrapBus, when set, decorates the event bus before any service uses
	// it (tests count publishes with it).
	WrapBus func(bus.Bus) bus.Bus
}

// Platform is an assembled server.
type Platform struct {
	cfg         Config
	DB          *store.DB
	Bus         bus.Bus
	Presence    presence.Store
	Auth        *auth.Service
	Notify      *notification.Service
	Providers   *provider.Service
	Onboarding  *onboarding.Service
	Fleet       *fleet.Service
	Bench       *bench.Service
	Pricing     *pricing.Service
	Market      *market.Service
	Billing     *billing.Service
	Deposits    *deposit.Service
	Reliability *reliability.Service
	Mail        *mail.Worker
	Handler     *api.Server
	redis       *redis.Client
	background  []Background
	// publicURL is where providers reach the platform: links in emails
	// and the install command (set to the bound address when no
	// --public-url is configured).
	publicURL atomic.Pointer[string]
}

// PublicURL is where providers reach the platform.
func (p *Platform) PublicURL() string { return *p.publicURL.Load() }

// withPublicURL gives the benchmark's emails the platform's address
// unless the configuration set one.
func withPublicURL(cfg bench.Config, url func() string) bench.Config {
	if cfg.PublicURL == nil {
		cfg.PublicURL = url
	}
	return cfg
}

// Background is work that runs while the platform serves: it starts once
// the listener is bound, with the URL it is reachable at, and ctx ends
// after the HTTP server has stopped serving (ServeListener waits for it to
// return). The command adds work the assembly does not know about, such as
// the demo world's in-process agents.
type Background func(ctx context.Context, url string)

// New opens and migrates the database, connects the backends and builds
// the handler. Close releases everything.
func New(ctx context.Context, cfg Config) (*Platform, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	p := &Platform{cfg: cfg}
	ok := false
	defer func() {
		if !ok {
			p.Close()
		}
	}()
	if err := p.openStore(ctx); err != nil {
		return nil, err
	}
	if err := p.connectEvents(ctx); err != nil {
		return nil, err
	}
	if err := p.buildServices(); err != nil {
		return nil, err
	}
	p.buildHandler()
	ok = true
	return p, nil
}

// openStore opens the database and migrates it up.
func (p *Platform) openStore(ctx context.Context) error {
	cfg := p.cfg
	db, err := store.Open(ctx, store.Config{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir, Logger: cfg.Logger})
	if err != nil {
		return err
	}
	p.DB = db
	applied, err := db.MigrateUp(ctx)
	if err != nil {
		return err
	}
	if len(applied) > 0 {
		cfg.Logger.Info("platform: migrations applied", "backend", db.Backend(), "migrations", applied)
	}
	return nil
}

// connectEvents connects the event bus and the presence store: Redis with
// a URL, in-process otherwise.
func (p *Platform) connectEvents(ctx context.Context) error {
	cfg := p.cfg
	if cfg.RedisURL != "" {
		opts, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return fmt.Errorf("platform: invalid redis URL: %w", err)
		}
		p.redis = redis.NewClient(opts)
		p.redis.AddHook(bus.EndedIsOutage{})
		pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = p.redis.Ping(pingCtx).Err()
		cancel()
		if err != nil {
			return fmt.Errorf("platform: unable to reach redis: %w", err)
		}
		var busOpts []bus.RedisOption
		var presenceOpts []presence.RedisOption
		if cfg.RedisPrefix != "" {
			busOpts = append(busOpts, bus.WithPrefix(cfg.RedisPrefix))
			presenceOpts = append(presenceOpts, presence.WithNamespace(cfg.RedisPrefix))
		}
		p.Bus = bus.NewRedis(p.redis, cfg.Logger, busOpts...)
		p.Presence = presence.NewRedis(p.redis, presenceOpts...)
	} else {
		p.Bus = bus.NewMemory()
		p.Presence = presence.NewMemory(cfg.Clock)
	}
	if cfg.WrapBus != nil {
		p.Bus = cfg.WrapBus(p.Bus)
	}
	return nil
}

// buildServices builds the domain services and wires their hooks: who
// tells whom of a sign-up, a registration, a transition, a rental's end
// and a score.
func (p *Platform) buildServices() error {
	cfg, db := p.cfg, p.DB
	p.Auth = auth.New(auth.Deps{DB: db, Bus: p.Bus, Redis: p.redis, Clock: cfg.Clock, Logger: cfg.Logger},
		auth.Config{PasswordParams: cfg.PasswordParams, RedisPrefix: cfg.RedisPrefix})
	p.Notify = notification.New(notification.Deps{DB: db, Bus: p.Bus, Clock: cfg.Clock, Logger: cfg.Logger}, notification.Config{})
	p.Auth.OnSignUp(p.Notify.Welcome)

	outbox, err := p.buildMail()
	if err != nil {
		return err
	}
	p.Auth.UseSignUpMail(auth.SignUpMail{Outbox: outbox, PublicURL: p.PublicURL})
	p.Providers = provider.New(provider.Deps{DB: db, Auth: p.Auth, Clock: cfg.Clock, Logger: cfg.Logger},
		provider.Config{InstallCommand: func() string { return installer.Command(p.PublicURL()) }})
	p.Onboarding = onboarding.New(onboarding.Deps{DB: db, Auth: p.Auth, Providers: p.Providers, Notify: p.Notify, Bus: p.Bus,
		Outbox: outbox, Clock: cfg.Clock, Logger: cfg.Logger}, onboarding.Config{PublicURL: p.PublicURL})

	p.Fleet = fleet.New(fleet.Deps{DB: db, Presence: p.Presence, Bus: p.Bus, Clock: cfg.Clock, Logger: cfg.Logger, Notify: p.Notify}, cfg.Fleet)
	p.Bench = bench.New(bench.Deps{DB: db, Bus: p.Bus, Fleet: p.Fleet, Notify: p.Notify, Outbox: outbox, Clock: cfg.Clock, Logger: cfg.Logger},
		withPublicURL(cfg.Bench, p.PublicURL))
	p.Fleet.OnRegistered(p.Bench.OnRegistered)
	p.Billing = billing.New(billing.Deps{DB: db, Bus: p.Bus, Notify: p.Notify, Clock: cfg.Clock, Logger: cfg.Logger,
		Solana: cfg.Solana, Passwords: p.Auth, Outbox: outbox}, cfg.Billing)
	p.Market = market.New(market.Deps{DB: db, Bus: p.Bus, Fleet: p.Fleet, Clock: cfg.Clock, Logger: cfg.Logger, Funds: p.Billing, Notify: p.Notify, Costs: p.Billing, Meter: p.Billing}, cfg.Market)
	// The platform's fee is the market's: pricing's advice reads it there.
	p.Pricing = pricing.New(pricing.Deps{DB: db, Bus: p.Bus, Clock: cfg.Clock, Logger: cfg.Logger, FeeBps: p.Market.Config().FeeBps}, cfg.Pricing)
	p.Fleet.OnRegistered(p.Pricing.OnRegistered)
	p.Billing.SetStop(p.Market.StopUnfunded, p.Market.Config().StopGrace)
	p.Billing.OnCharged(func(ctx context.Context, c billing.ChargedRental) {
		p.Market.AnnounceCharged(ctx, c.CustomerID, c.ProviderID, c.RentalID)
	})
	var chain deposit.Chain
	if cfg.Solana != nil {
		chain = cfg.Solana
	}
	deposits, err := deposit.New(deposit.Deps{DB: db, Bus: p.Bus, Notify: p.Notify, Billing: p.Billing, Chain: chain,
		Clock: cfg.Clock, Logger: cfg.Logger}, withExplorer(cfg.Deposit, cfg.Billing.Payouts))
	if err != nil {
		return fmt.Errorf("platform: %w", err)
	}
	p.Deposits = deposits
	p.Reliability = reliability.New(reliability.Deps{DB: db, Bus: p.Bus, Notify: p.Notify, Clock: cfg.Clock, Logger: cfg.Logger}, cfg.Reliability)
	p.Fleet.OnTransition(p.Reliability.OnTransition)
	p.Market.OnEnded(p.Reliability.OnRentalEnded)
	p.Market.SetReliability(p.Reliability)
	p.Bench.OnScored(p.Reliability.OnBenchmarked)
	return nil
}

// withExplorer links deposits' transactions to the explorer payouts link
// to, unless the deposit configuration names its own.
func withExplorer(c deposit.Config, payouts billing.PayoutConfig) deposit.Config {
	if c.ExplorerURL == "" && c.ExplorerCluster == "" {
		c.ExplorerURL, c.ExplorerCluster = payouts.ExplorerURL, payouts.ExplorerCluster
	}
	return c
}

// buildMail builds the mail worker and its outbox (SMTP, or .eml files in
// the data directory) and keeps the public URL emails link to.
func (p *Platform) buildMail() (*mail.Outbox, error) {
	cfg := p.cfg
	from := cfg.MailFrom
	if from == "" {
		from = mail.DefaultFrom
	}
	dataDir := cfg.DataDir
	if dataDir == "" {
		dataDir = "data"
	}
	sender, err := mail.NewSender(cfg.SMTPURL, dataDir, from)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	p.Mail = mail.NewWorker(mail.WorkerDeps{DB: p.DB, Sender: sender, Clock: cfg.Clock, Logger: cfg.Logger}, mail.WorkerConfig{})
	publicURL := cfg.PublicURL
	if publicURL == "" {
		publicURL = "http://" + cfg.Addr
	}
	p.publicURL.Store(&publicURL)
	return mail.NewOutbox(cfg.Clock, p.Mail.Kick), nil
}

// buildHandler builds the HTTP handler: GraphQL over the resolvers, the
// prepared heartbeat, the SPA, the installer, the benchmark's network
// routes and the health checks.
func (p *Platform) buildHandler() {
	cfg := p.cfg
	res := &resolvers.Resolver{Auth: p.Auth, Notify: p.Notify, Providers: p.Providers, Onboarding: p.Onboarding, Fleet: p.Fleet,
		Bench: p.Bench, Pricing: p.Pricing, Market: p.Market, Billing: p.Billing, Deposits: p.Deposits, Scoring: p.Reliability, Logger: cfg.Logger}
	spa := cfg.SPA
	if spa == nil {
		spa, _ = fs.Sub(frontend.Dist, "dist")
	}
	routes := api.BenchNetworkRoutes(p.Auth, p.Fleet.ResolveMachine, cfg.Clock, cfg.BenchNetwork, cfg.Logger)
	// Without --public-url the installer names the host it was fetched
	// from; an empty image is the default one.
	routes["GET "+installer.Path] = installer.Handler(publicURLFunc(cfg.PublicURL), cfg.AgentImage)
	p.Handler = api.New(cfg.API, api.Deps{
		Schema: graph.NewExecutableSchema(resolvers.NewSchema(res)),
		Auth:   p.Auth,
		Logger: cfg.Logger,
		SPA:    spa,
		// The agent's heartbeat skips the generic executor (see
		// api.Prepare); registerMachine, once per agent start, does not
		// need to.
		Prepared: []api.PreparedOperation{api.Prepare(protocol.HeartbeatMutation, res.PreparedHeartbeat)},
		Checks: []api.Check{
			{Name: "database", Ping: p.DB.Ping},
			{Name: "events", Ping: p.Bus.Ping},
			{Name: "presence", Ping: p.Presence.Ping},
		},
		Routes: routes,
		// A request the platform could not take for an outage of its own
		// is no machine's downtime (fleet.Service.NoteOutage).
		Outage: p.Fleet.NoteOutage,
		// The database pool's connections (open, in use, idle, closed
		// and why, waits) as go_sql_* series.
		Collectors: []prometheus.Collector{collectors.NewDBStatsCollector(p.DB.DB.DB, "gpunex")},
	})
}

// AddBackground adds work that runs while the platform serves (see
// Background). Call it before Serve or ServeListener.
func (p *Platform) AddBackground(fn Background) {
	p.background = append(p.background, fn)
}

// Serve listens on cfg.Addr and serves until ctx ends, then shuts down
// gracefully: it stops accepting, lets requests finish (up to 10s) and
// closes WebSockets. ready, if set, receives the listening URL.
func (p *Platform) Serve(ctx context.Context, ready func(url string)) error {
	ln, err := net.Listen("tcp", p.cfg.Addr)
	if err != nil {
		return fmt.Errorf("platform: unable to listen on %s: %w", p.cfg.Addr, err)
	}
	return p.ServeListener(ctx, ln, ready)
}

// HTTPServer is the server the platform serves h with: a client has 10 s
// to send a request's headers and a kept-alive connection 2 min to send
// the next request. BenchmarkSmallQueries serves its bare handler with it
// too, so that handlers are compared on the same server.
func HTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// ServeListener is Serve on an existing listener.
func (p *Platform) ServeListener(ctx context.Context, ln net.Listener, ready func(url string)) error {
	// Background work lives until the server has stopped serving.
	baseCtx, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	srv := HTTPServer(p.Handler, p.cfg.Logger)
	// Shutdown lets requests finish but does not track WebSockets.
	srv.RegisterOnShutdown(p.Handler.CloseStreams)
	if p.cfg.PublicURL == "" {
		// Links in emails must name the address actually bound (--addr
		// may say port 0).
		bound := "http://" + ln.Addr().String()
		p.publicURL.Store(&bound)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var background sync.WaitGroup
	background.Add(1)
	go func() {
		defer background.Done()
		_ = p.Mail.Run(baseCtx)
	}()
	background.Add(2)
	go func() {
		defer background.Done()
		p.Fleet.RunBackground(baseCtx)
	}()
	go func() {
		defer background.Done()
		p.Auth.ListenForRevocations(baseCtx)
	}()
	background.Go(func() { p.Bench.RunBackground(baseCtx) })
	background.Go(func() { p.Market.RunBackground(baseCtx) })
	background.Go(func() { p.Billing.RunBackground(baseCtx) })
	background.Go(func() { p.Deposits.RunBackground(baseCtx) })
	background.Go(func() { p.Reliability.RunBackground(baseCtx) })
	background.Go(func() { p.Pricing.RunBackground(baseCtx) })
	for _, fn := range p.background {
		background.Go(func() { fn(baseCtx, "http://"+ln.Addr().String()) })
	}
	stopBackground := func() {
		cancelBase()
		background.Wait()
	}
	if ready != nil {
		ready("http://" + ln.Addr().String())
	}
	select {
	case err := <-errc:
		stopBackground()
		return err
	case <-ctx.Done():
	}
	p.cfg.Logger.Info("platform: shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := srv.Shutdown(shutCtx)
	stopBackground()
	if err != nil {
		return fmt.Errorf("platform: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close releases the backends.
func (p *Platform) Close() {
	if p.Bus != nil {
		_ = p.Bus.Close()
	}
	if p.Presence != nil {
		_ = p.Presence.Close()
	}
	if p.redis != nil {
		_ = p.redis.Close()
	}
	if p.DB != nil {
		_ = p.DB.Close()
	}
}

// publicURLFunc answers the configured public URL, or nil (the request's
// own host) when none is configured.
func publicURLFunc(u string) func(*http.Request) string {
	if u == "" {
		return nil
	}
	return func(*http.Request) string { return u }
}
