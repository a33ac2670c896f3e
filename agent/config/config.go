package config

import (
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/gpu"
)

// Defaults of the settings that have one.
const (
	DefaultDataDir   = "/var/lib/gpunex-agent"
	DefaultLogFormat = "json"
	DefaultLogLevel  = "info"
)

// TokenPrefix starts every agent token; the server's tokens of other kinds
// start differently, so a wrong paste is caught before the first request.
const TokenPrefix = "gpx_a_"

// Origin says where a setting's value came from.
type Origin string

// The origins, from the strongest to the weakest.
const (
	FromFlag    Origin = "flag"
	FromEnv     Origin = "environment"
	FromFile    Origin = "config file"
	FromDefault Origin = "default"
)

// Config is the agent's validated configuration.
type Config struct {
	// Server is the server's base URL without a trailing slash, e.g.
	// "https://gpunex.example.com"; GraphQL is at Server+"/graphql".
	Server string
	// Token is the agent token, kept out of every print and log.
	Token Token
	// DataDir holds the machine identity and the heartbeat buffer; an
	// absolute path.
	DataDir string
	// Simulate is the --simulate spec ("2xH100,1xL4"), empty for real GPUs.
	Simulate string
	// Hostname is what the dashboard calls the machine.
	Hostname string
	// BenchStorageBytes is the size of the storage benchmark's test file;
	// zero lets the benchmark choose (bench.DefaultStorageBytes, or
	// bench.DefaultSimulatedStorageBytes with --simulate).
	BenchStorageBytes int64
	// BenchGPUBudget bounds one GPU's benchmark.
	BenchGPUBudget time.Duration
	// SimulatedBenchDuration is how long a simulated GPU's benchmark keeps
	// it loaded (with --simulate only).
	SimulatedBenchDuration time.Duration
	// CUDALibrary is the CUDA driver library the GPU benchmark loads; empty
	// means the driver's soname, libcuda.so.1.
	CUDALibrary string
	// JobRuntime is where jobs run: "auto" (Docker on real GPUs, local
	// processes with --simulate), "docker" or "process" (--simulate only).
	JobRuntime string
	// File is the config file that was read, empty when none.
	File string
	// LogFormat is "json" or "text".
	LogFormat string
	// LogLevel is the lowest level logged.
	LogLevel slog.Level
	// ShowVersion is set by --version: print the version and exit; nothing
	// else is read or validated then.
	ShowVersion bool
	// BenchOnce is set by --bench-once: benchmark this machine's GPUs, print
	// the result as JSON and exit; no server or token is needed.
	BenchOnce bool
	// Origins tells, per environment name (GPUNEX_SERVER, …), where the
	// value came from, for the startup log.
	Origins map[string]Origin
	// Warnings are problems that do not stop the agent (unknown keys in the
	// file, a token others may read: in a file open to them, or given with
	// --token); main logs them once at start. None contains the token.
	Warnings []string
}

// setting is one configurable value and its names.
type setting struct {
	flag, env, usage, def string
}

var (
	settingServer    = setting{"server", "GPUNEX_SERVER", "GPUnex server URL, e.g. https://gpunex.example.com", ""}
	settingToken     = setting{"token", "GPUNEX_TOKEN", "agent token (gpx_a_…) from the Agent tokens page; prefer the environment or the config file, which other users cannot read", ""}
	settingDataDir   = setting{"data-dir", "GPUNEX_DATA_DIR", "directory for the machine identity and buffered heartbeats", DefaultDataDir}
	settingSimulate  = setting{"simulate", "GPUNEX_SIMULATE", "simulate GPUs instead of reading them with NVML, e.g. 2xH100,1xL4; a group may add faults, e.g. 1xH100:throttled+ecc-errors (profiles: " + profileList() + ")", ""}
	settingHostname  = setting{"hostname", "GPUNEX_HOSTNAME", "machine name shown on the dashboard (default: the host name)", ""}
	settingLogFormat = setting{"log-format", "GPUNEX_LOG_FORMAT", "log format: json or text", DefaultLogFormat}
	settingLogLevel  = setting{"log-level", "GPUNEX_LOG_LEVEL", "log level: debug, info, warn or error", DefaultLogLevel}
	settingConfig    = setting{"config", "GPUNEX_CONFIG", "env-style file of KEY=VALUE lines, e.g. /etc/gpunex/agent.env", ""}

	settingBenchStorageBytes = setting{"bench-storage-bytes", "GPUNEX_BENCH_STORAGE_BYTES",
		fmt.Sprintf("size of the storage benchmark's test file in the data directory, e.g. 256MiB or 1GiB (default %d MiB, %d MiB with --simulate)",
			bench.DefaultStorageBytes>>20, bench.DefaultSimulatedStorageBytes>>20), ""}
	settingBenchGPUBudget   = setting{"bench-gpu-budget", "GPUNEX_BENCH_GPU_BUDGET", "how long one GPU's benchmark may take, e.g. 50s or 2m", bench.DefaultGPUBudget.String()}
	settingSimBenchDuration = setting{"simulated-bench-duration", "GPUNEX_SIMULATED_BENCH_DURATION",
		"with --simulate: how long each simulated GPU's benchmark keeps it loaded, e.g. 600ms or 5s (a demo or a test watching a run go part by part)", bench.DefaultSimulatedDuration.String()}
	settingCUDALibrary = setting{"cuda-library", "GPUNEX_CUDA_LIBRARY", "CUDA driver library the GPU benchmark loads (default libcuda.so.1, found by the dynamic loader)", ""}
	settingJobRuntime  = setting{"job-runtime", "GPUNEX_JOB_RUNTIME", "where customer jobs run: auto (Docker on real GPUs, local processes with --simulate), docker (with --simulate: real containers without a GPU device, for tests and demos of the isolation) or process (--simulate only)", "auto"}

	// fileSettings are the settings a config file may hold.
	fileSettings = []setting{settingServer, settingToken, settingDataDir, settingSimulate, settingHostname, settingLogFormat, settingLogLevel,
		settingBenchStorageBytes, settingBenchGPUBudget, settingSimBenchDuration, settingCUDALibrary, settingJobRuntime}
)

// flags is the agent's flag set bound to raw values.
type flags struct {
	fs        *flag.FlagSet
	values    map[string]*string
	version   *bool
	benchOnce *bool
}

func newFlags() *flags {
	f := &flags{fs: flag.NewFlagSet("gpunex-agent", flag.ContinueOnError), values: map[string]*string{}}
	f.fs.SetOutput(io.Discard)
	for _, s := range append([]setting{settingConfig}, fileSettings...) {
		usage := s.usage + " (env " + s.env + ")"
		f.values[s.flag] = f.fs.String(s.flag, s.def, usage)
	}
	f.version = f.fs.Bool("version", false, "print the version and exit")
	f.benchOnce = f.fs.Bool("bench-once", false, "benchmark this machine's GPUs, print the result as JSON and exit (no server or token needed)")
	return f
}

// Usage writes the flags, their environment variables and defaults to w.
func Usage(w io.Writer) {
	f := newFlags()
	f.fs.SetOutput(w)
	fmt.Fprintf(w, "Usage: gpunex-agent [flags]\n\nRuns the GPUnex agent: registers this machine's GPUs with the server,\nsends heartbeats and runs the jobs the server assigns.\n\nFlags (precedence: flag, environment, config file, default):\n")
	f.fs.PrintDefaults()
}

// Load reads the configuration from args (without the program name), the
// environment through lookupEnv (os.LookupEnv in main) and the config file
// they name, and validates it. -h and --help return flag.ErrHelp. Every
// problem found is reported, each naming its flag and variable; none
// contains the token.
func Load(args []string, lookupEnv func(string) (string, bool)) (*Config, error) {
	if lookupEnv == nil {
		lookupEnv = func(string) (string, bool) { return "", false }
	}
	f := newFlags()
	if err := f.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		// The flag package's message quotes only the flag name and, for a
		// bad boolean, its value; --token takes any string, so the token
		// cannot appear here.
		return nil, fmt.Errorf("config: %w (see gpunex-agent --help)", err)
	}
	if f.fs.NArg() > 0 {
		return nil, fmt.Errorf("config: unexpected argument %q: gpunex-agent takes flags only (see gpunex-agent --help)", f.fs.Arg(0))
	}
	cfg := &Config{Origins: map[string]Origin{}}
	if *f.version {
		cfg.ShowVersion = true
		return cfg, nil
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })

	// The file's own location: flag, then environment.
	r := resolver{flags: f, set: set, lookupEnv: lookupEnv, origins: cfg.Origins}
	cfg.File, _ = r.value(settingConfig)
	if cfg.File != "" {
		file, warnings, err := readFile(cfg.File)
		if err != nil {
			return nil, err
		}
		r.file = file
		cfg.Warnings = append(cfg.Warnings, warnings...)
	}

	cfg.BenchOnce = *f.benchOnce
	var errs []error
	for _, resolve := range []func(*Config, *resolver) []error{resolveConnection, resolveMachine, resolveBench, resolveOutput} {
		errs = append(errs, resolve(cfg, &r)...)
	}

	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	switch r.origins[settingToken.env] {
	case FromFlag:
		cfg.Warnings = append(cfg.Warnings, tokenFlagWarning)
	case FromFile:
		if w := filePermissionWarning(cfg.File); w != "" {
			cfg.Warnings = append(cfg.Warnings, w)
		}
	}
	return cfg, nil
}

// The settings, by what they are about. Each resolver reads its settings
// from r into cfg and returns every problem it finds, each naming its
// flag, variable and where the value came from.

// resolveConnection: the server, the token and the data directory
// (--bench-once needs neither server nor token).
func resolveConnection(cfg *Config, r *resolver) (errs []error) {
	raw, origin := r.value(settingServer)
	server, err := parseServer(raw)
	if err != nil && !cfg.BenchOnce {
		errs = append(errs, r.problem(settingServer, origin, err))
	}
	cfg.Server = server

	raw, origin = r.value(settingToken)
	if err := checkToken(raw); err != nil && !cfg.BenchOnce {
		errs = append(errs, r.problem(settingToken, origin, err))
	}
	cfg.Token = Token(raw)

	raw, origin = r.value(settingDataDir)
	if strings.TrimSpace(raw) == "" {
		errs = append(errs, r.problem(settingDataDir, origin, errors.New("must not be empty")))
	} else if abs, err := filepath.Abs(raw); err != nil {
		errs = append(errs, r.problem(settingDataDir, origin, err))
	} else {
		cfg.DataDir = abs
	}
	return errs
}

// resolveMachine: simulated GPUs and the host name.
func resolveMachine(cfg *Config, r *resolver) (errs []error) {
	raw, origin := r.value(settingSimulate)
	cfg.Simulate = strings.TrimSpace(raw)
	if cfg.Simulate != "" {
		if _, err := gpu.ParseSimSpec(cfg.Simulate); err != nil {
			errs = append(errs, r.problem(settingSimulate, origin, err))
		}
	}

	raw, origin = r.value(settingHostname)
	cfg.Hostname = strings.TrimSpace(raw)
	if cfg.Hostname == "" {
		host, err := os.Hostname()
		switch {
		case err != nil:
			errs = append(errs, r.problem(settingHostname, origin, fmt.Errorf("the host name cannot be read (%v); set one", err)))
		case strings.TrimSpace(host) == "":
			errs = append(errs, r.problem(settingHostname, origin, errors.New("the host has no name; set one")))
		default:
			cfg.Hostname = strings.TrimSpace(host)
		}
	}
	if len(cfg.Hostname) > 253 {
		errs = append(errs, r.problem(settingHostname, origin, fmt.Errorf("at most 253 characters; got %d", len(cfg.Hostname))))
	}
	return errs
}

// resolveBench: the benchmark's storage file, GPU budget and driver
// library.
func resolveBench(cfg *Config, r *resolver) (errs []error) {
	raw, origin := r.value(settingBenchStorageBytes)
	if strings.TrimSpace(raw) != "" {
		n, err := parseBytes(raw)
		if err != nil {
			errs = append(errs, r.problem(settingBenchStorageBytes, origin, err))
		}
		cfg.BenchStorageBytes = n
	}

	raw, origin = r.value(settingBenchGPUBudget)
	budget, err := time.ParseDuration(strings.TrimSpace(raw))
	switch {
	case err != nil:
		errs = append(errs, r.problem(settingBenchGPUBudget, origin, fmt.Errorf("want a duration such as 50s or 2m; got %q", raw)))
	case budget < MinBenchGPUBudget || budget > MaxBenchGPUBudget:
		errs = append(errs, r.problem(settingBenchGPUBudget, origin, fmt.Errorf("must be between %s and %s; got %s", MinBenchGPUBudget, MaxBenchGPUBudget, budget)))
	}
	cfg.BenchGPUBudget = budget

	raw, origin = r.value(settingSimBenchDuration)
	simDuration, err := time.ParseDuration(strings.TrimSpace(raw))
	switch {
	case err != nil:
		errs = append(errs, r.problem(settingSimBenchDuration, origin, fmt.Errorf("want a duration such as 600ms or 5s; got %q", raw)))
	case simDuration < MinSimulatedBenchDuration || simDuration > MinBenchGPUBudget:
		errs = append(errs, r.problem(settingSimBenchDuration, origin, fmt.Errorf("must be between %s and %s; got %s", MinSimulatedBenchDuration, MinBenchGPUBudget, simDuration)))
	}
	cfg.SimulatedBenchDuration = simDuration

	raw, _ = r.value(settingCUDALibrary)
	cfg.CUDALibrary = strings.TrimSpace(raw)
	return errs
}

// resolveOutput: where jobs run and how the agent logs (after
// resolveMachine: the process runtime needs --simulate).
func resolveOutput(cfg *Config, r *resolver) (errs []error) {
	raw, origin := r.value(settingJobRuntime)
	cfg.JobRuntime = strings.ToLower(strings.TrimSpace(raw))
	switch {
	case cfg.JobRuntime != "auto" && cfg.JobRuntime != "docker" && cfg.JobRuntime != "process":
		errs = append(errs, r.problem(settingJobRuntime, origin, fmt.Errorf("want auto, docker or process; got %q", raw)))
	case cfg.JobRuntime == "process" && cfg.Simulate == "":
		errs = append(errs, r.problem(settingJobRuntime, origin, errors.New("process runs jobs outside any container: only with --simulate")))
	}

	raw, origin = r.value(settingLogFormat)
	cfg.LogFormat = strings.ToLower(strings.TrimSpace(raw))
	if cfg.LogFormat != "json" && cfg.LogFormat != "text" {
		errs = append(errs, r.problem(settingLogFormat, origin, fmt.Errorf("want json or text; got %q", raw)))
	}

	raw, origin = r.value(settingLogLevel)
	if err := cfg.LogLevel.UnmarshalText([]byte(strings.TrimSpace(raw))); err != nil {
		errs = append(errs, r.problem(settingLogLevel, origin, fmt.Errorf("want debug, info, warn or error; got %q", raw)))
	}
	return errs
}

// tokenFlagWarning is the warning for a token given with --token. The
// kernel shows every process's arguments to every user of the host; the
// environment and a mode-600 file are not.
const tokenFlagWarning = "the agent token was given with --token, so every user of this host can read it " +
	"(ps, /proc/<pid>/cmdline): set it in the GPUNEX_TOKEN environment variable or in the config file " +
	"(--config, e.g. GPUNEX_TOKEN=… in /etc/gpunex/agent.env, mode 600) instead"

// Bounds of the benchmark settings.
const (
	// MinBenchGPUBudget leaves the GPU suite time for a repetition of each
	// metric; MaxBenchGPUBudget keeps a benchmark from holding a GPU back
	// from customers for long.
	MinBenchGPUBudget = 5 * time.Second
	// MinSimulatedBenchDuration is the shortest a simulated GPU's benchmark
	// may be; the longest is MinBenchGPUBudget, so it never overruns its
	// budget.
	MinSimulatedBenchDuration = 10 * time.Millisecond
	MaxBenchGPUBudget         = 10 * time.Minute
	// MinBenchStorageBytes and MaxBenchStorageBytes bound the storage test
	// file.
	MinBenchStorageBytes = 1 << 20
	MaxBenchStorageBytes = 64 << 30
)

// byteUnits are the suffixes parseBytes accepts, longest first.
var byteUnits = []struct {
	suffix string
	factor int64
}{
	{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10},
	{"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3},
	{"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1},
}

// parseBytes reads a size: a number of bytes, or one with a unit (KiB,
// MiB, GiB; K, M, G are binary too; KB, MB, GB decimal).
func parseBytes(raw string) (int64, error) {
	text := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(raw), " ", ""))
	factor := int64(1)
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(text, u.suffix); ok {
			text, factor = num, u.factor
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n <= 0 || n > MaxBenchStorageBytes/factor {
		if err == nil && n > 0 {
			return 0, fmt.Errorf("at most %d GiB; got %q", MaxBenchStorageBytes>>30, raw)
		}
		return 0, fmt.Errorf("want a size such as 256MiB or 1GiB; got %q", raw)
	}
	if n*factor < MinBenchStorageBytes {
		return 0, fmt.Errorf("at least 1 MiB; got %q", raw)
	}
	return n * factor, nil
}

// profileList names the --simulate profiles for the usage text.
func profileList() string {
	ps := gpu.Profiles()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// GraphQLURL is the server's GraphQL endpoint.
func (c *Config) GraphQLURL() string { return c.Server + "/graphql" }

// resolver picks each setting's value by precedence and records where it
// came from.
type resolver struct {
	flags     *flags
	set       map[string]bool
	lookupEnv func(string) (string, bool)
	file      map[string]string
	origins   map[string]Origin
}

func (r resolver) value(s setting) (string, Origin) {
	v, o := r.pick(s)
	r.origins[s.env] = o
	return v, o
}

func (r resolver) pick(s setting) (string, Origin) {
	if r.set[s.flag] {
		return *r.flags.values[s.flag], FromFlag
	}
	if v, ok := r.lookupEnv(s.env); ok && v != "" {
		return v, FromEnv
	}
	if v, ok := r.file[s.env]; ok && v != "" {
		return v, FromFile
	}
	return s.def, FromDefault
}

// problem names the setting both ways and, when it came from the file,
// the file.
func (r resolver) problem(s setting, o Origin, err error) error {
	where := ""
	switch o {
	case FromFile:
		where = " in " + r.flagsFile()
	case FromEnv:
		where = " from the environment"
	}
	return fmt.Errorf("config: --%s (%s)%s: %w", s.flag, s.env, where, err)
}

func (r resolver) flagsFile() string {
	v, _ := r.pick(settingConfig)
	return v
}

// parseServer accepts an http(s) URL with a host and nothing a base URL
// should not have, and drops a trailing slash.
func parseServer(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("required: the URL of the GPUnex server, e.g. https://gpunex.example.com (it is in the install command of the approval email)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("not a URL: want http(s)://host[:port], e.g. https://gpunex.example.com")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("want an http:// or https:// URL, e.g. https://gpunex.example.com; got %q", redactURL(u))
	case u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("the URL has no host; want e.g. https://gpunex.example.com; got %q", redactURL(u))
	case u.User != nil:
		return "", errors.New("the URL must not carry a user or password; the agent authenticates with its token")
	case u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("the URL must not have a query or fragment; got %q", redactURL(u))
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// redactURL prints a URL without its user information.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// checkToken checks the form of an agent token; its messages never quote
// the token.
func checkToken(tok string) error {
	const fix = "create an agent token on the Agent tokens page of the dashboard"
	switch {
	case tok == "":
		return errors.New("required: the agent token (gpx_a_…); " + fix)
	case strings.TrimSpace(tok) != tok:
		return errors.New("the token has leading or trailing spaces; paste it again without them (the value is not shown)")
	case !strings.HasPrefix(tok, TokenPrefix):
		return fmt.Errorf("not an agent token: agent tokens start with %q (the value is not shown); %s", TokenPrefix, fix)
	case len(tok) == len(TokenPrefix):
		return fmt.Errorf("the token is only its prefix %q; paste the whole token", TokenPrefix)
	}
	if _, err := base64.RawURLEncoding.DecodeString(tok[len(TokenPrefix):]); err != nil {
		return errors.New("the token has characters an agent token never has, or is cut short; paste it again (the value is not shown)")
	}
	return nil
}
