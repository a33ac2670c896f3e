package config_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/config"
)

// Tokens of the server's form: the prefix and 43 base64url characters.
const (
	fileToken = "gpx_a_FILEFILEFILEFILEFILEFILEFILEFILEFILEFIL"
	envToken  = "gpx_a_ENVENVENVENVENVENVENVENVENVENVENVENVENV"
	flagToken = "gpx_a_FLAGFLAGFLAGFLAGFLAGFLAGFLAGFLAGFLAGFLA"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.env")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

func TestLoad_PrecedenceFlagEnvFileDefault(t *testing.T) {
	t.Parallel()
	file := writeFile(t, strings.Join([]string{
		"# written by the installer",
		"GPUNEX_SERVER=https://file.example.com",
		"GPUNEX_TOKEN=" + fileToken,
		"GPUNEX_DATA_DIR=/srv/file",
		"GPUNEX_SIMULATE=1xL4",
		"GPUNEX_HOSTNAME=file-host",
		"GPUNEX_LOG_FORMAT=text",
	}, "\n"))

	for _, tc := range []struct {
		desc     string
		args     []string
		env      map[string]string
		server   string
		token    string
		dataDir  string
		simulate string
		host     string
		origin   config.Origin
	}{
		{
			desc: "the file when nothing else says",
			args: []string{"--config", file}, env: map[string]string{},
			server: "https://file.example.com", token: fileToken, dataDir: "/srv/file", simulate: "1xL4", host: "file-host",
			origin: config.FromFile,
		},
		{
			desc: "the environment over the file",
			args: []string{"--config", file},
			env: map[string]string{"GPUNEX_SERVER": "https://env.example.com", "GPUNEX_TOKEN": envToken,
				"GPUNEX_DATA_DIR": "/srv/env", "GPUNEX_SIMULATE": "2xH100", "GPUNEX_HOSTNAME": "env-host"},
			server: "https://env.example.com", token: envToken, dataDir: "/srv/env", simulate: "2xH100", host: "env-host",
			origin: config.FromEnv,
		},
		{
			desc: "flags over the environment",
			args: []string{"--config", file, "--server", "https://flag.example.com/", "--token", flagToken,
				"--data-dir", "/srv/flag", "--simulate", "2xH100,1xL4", "--hostname", "flag-host"},
			env: map[string]string{"GPUNEX_SERVER": "https://env.example.com", "GPUNEX_TOKEN": envToken,
				"GPUNEX_DATA_DIR": "/srv/env", "GPUNEX_SIMULATE": "2xH100", "GPUNEX_HOSTNAME": "env-host"},
			server: "https://flag.example.com", token: flagToken, dataDir: "/srv/flag", simulate: "2xH100,1xL4", host: "flag-host",
			origin: config.FromFlag,
		},
		{
			desc: "the file named by GPUNEX_CONFIG; an empty variable counts as unset",
			args: nil, env: map[string]string{"GPUNEX_CONFIG": file, "GPUNEX_SERVER": ""},
			server: "https://file.example.com", token: fileToken, dataDir: "/srv/file", simulate: "1xL4", host: "file-host",
			origin: config.FromFile,
		},
		{
			desc: "an explicitly empty --simulate beats the file",
			args: []string{"--config", file, "--simulate="}, env: map[string]string{},
			server: "https://file.example.com", token: fileToken, dataDir: "/srv/file", simulate: "", host: "file-host",
			origin: config.FromFile,
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Load(tc.args, env(tc.env))
			require.NoError(t, err)
			require.Equal(t, tc.server, cfg.Server)
			require.Equal(t, tc.token, cfg.Token.Reveal())
			require.Equal(t, tc.dataDir, cfg.DataDir)
			require.Equal(t, tc.simulate, cfg.Simulate)
			require.Equal(t, tc.host, cfg.Hostname)
			require.Equal(t, "text", cfg.LogFormat, "from the file in every case")
			require.Equal(t, tc.origin, cfg.Origins["GPUNEX_SERVER"])
			require.Equal(t, file, cfg.File)
			require.Equal(t, tc.server+"/graphql", cfg.GraphQLURL())
		})
	}
}

func TestLoad_Defaults(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load([]string{"--server", "http://127.0.0.1:8080", "--token", flagToken}, env(nil))
	require.NoError(t, err)
	host, err := os.Hostname()
	require.NoError(t, err)
	require.Equal(t, config.DefaultDataDir, cfg.DataDir)
	require.Equal(t, host, cfg.Hostname)
	require.Empty(t, cfg.Simulate)
	require.Equal(t, "json", cfg.LogFormat)
	require.Equal(t, slog.LevelInfo, cfg.LogLevel)
	require.Empty(t, cfg.File)
	require.Equal(t, config.FromDefault, cfg.Origins["GPUNEX_DATA_DIR"])
}

func TestLoad_Version(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load([]string{"--version"}, env(nil))
	require.NoError(t, err, "--version needs no server or token")
	require.True(t, cfg.ShowVersion)
}

func TestLoad_Help(t *testing.T) {
	t.Parallel()
	_, err := config.Load([]string{"--help"}, env(nil))
	require.ErrorIs(t, err, flag.ErrHelp)
	var b strings.Builder
	config.Usage(&b)
	for _, want := range []string{"-server", "GPUNEX_SERVER", "-token", "GPUNEX_TOKEN", "-data-dir", "/var/lib/gpunex-agent", "-simulate", "2xH100,1xL4", "-config", "-log-format", "-version"} {
		require.Contains(t, b.String(), want)
	}
}

func TestLoad_BadServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc, server, want string
	}{
		{"missing", "", "required"},
		{"no scheme", "gpunex.example.com", "http:// or https://"},
		{"another scheme", "ftp://gpunex.example.com", "http:// or https://"},
		{"no host", "https://", "no host"},
		{"credentials", "https://admin:hunter2@gpunex.example.com", "must not carry a user or password"},
		{"a query", "https://gpunex.example.com/?x=1", "query or fragment"},
		{"not a URL", "https://gpu nex.example.com:port", "not a URL"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, err := config.Load([]string{"--server", tc.server, "--token", flagToken}, env(nil))
			require.Error(t, err)
			require.Contains(t, err.Error(), "--server (GPUNEX_SERVER)")
			require.Contains(t, err.Error(), tc.want)
			require.NotContains(t, err.Error(), "hunter2")
		})
	}
}

func TestLoad_BadTokenNeverQuotesIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc, token, want string
	}{
		{"missing", "", "required"},
		{"a session token", "gpx_s_SECRETSECRETSECRETSECRETSECRETSECRETSECR", `start with "gpx_a_"`},
		{"no prefix", "SECRETSECRETSECRETSECRETSECRETSECRETSECR", `start with "gpx_a_"`},
		{"only the prefix", "gpx_a_", "only its prefix"},
		{"pasted with a quote", `gpx_a_SECRETSECRETSECRETSECRETSECRETSECRETSEC"`, "characters an agent token never has"},
		{"pasted with a space", "gpx_a_SECRETSECRETSECRETSECRETSECRETSECRETSEC ", "spaces"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, err := config.Load([]string{"--server", "https://gpunex.example.com", "--token", tc.token}, env(nil))
			require.Error(t, err)
			require.Contains(t, err.Error(), "--token (GPUNEX_TOKEN)")
			require.Contains(t, err.Error(), tc.want)
			require.NotContains(t, err.Error(), "SECRET")
		})
	}
}

func TestLoad_ReportsEveryProblemAndWhereItCameFrom(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "GPUNEX_SERVER=gpunex.example.com\nGPUNEX_TOKEN=gpx_s_SECRETSECRETSECRETSECRETSECRETSECRETSEC\n")
	_, err := config.Load([]string{"--config", file, "--simulate", "3xB200", "--log-format", "xml"}, env(map[string]string{"GPUNEX_LOG_LEVEL": "loud"}))
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, "--server (GPUNEX_SERVER) in "+file)
	require.Contains(t, msg, "--token (GPUNEX_TOKEN) in "+file)
	require.Contains(t, msg, "--simulate (GPUNEX_SIMULATE)")
	require.Contains(t, msg, "--log-format (GPUNEX_LOG_FORMAT)")
	require.Contains(t, msg, "--log-level (GPUNEX_LOG_LEVEL) from the environment")
	require.NotContains(t, msg, "SECRET")
}

func TestLoad_ConfigFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc    string
		text    string
		server  string
		warning string
		err     string
	}{
		{"export prefix, quotes, blanks and comments",
			"\n# comment\n  export GPUNEX_SERVER=\"https://gpunex.example.com\"  \nGPUNEX_TOKEN='" + fileToken + "'\n\n",
			"https://gpunex.example.com", "", ""},
		{"the last of repeated keys wins",
			"GPUNEX_SERVER=https://a.example.com\nGPUNEX_SERVER=https://b.example.com\nGPUNEX_TOKEN=" + fileToken,
			"https://b.example.com", "", ""},
		{"unknown keys are a warning",
			"GPUNEX_SERVER=https://gpunex.example.com\nGPUNEX_TOKEN=" + fileToken + "\nGPUNEX_AGENT_IMAGE=x\n",
			"https://gpunex.example.com", "line 3: unknown key GPUNEX_AGENT_IMAGE", ""},
		{"a line without =",
			"GPUNEX_SERVER https://gpunex.example.com\nGPUNEX_TOKEN=" + fileToken,
			"", "", "line 1: want KEY=VALUE"},
		{"an unclosed quote never shows the value",
			"GPUNEX_SERVER=https://gpunex.example.com\nGPUNEX_TOKEN=\"" + fileToken + "\n",
			"", "", "line 2 (GPUNEX_TOKEN): the value opens a quote"},
		{"a bad line that holds the token is not quoted",
			"GPUNEX_SERVER=https://gpunex.example.com\n" + fileToken + "\n",
			"", "", "line 2: want KEY=VALUE"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			file := writeFile(t, tc.text)
			cfg, err := config.Load([]string{"--config", file}, env(nil))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.NotContains(t, err.Error(), fileToken)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.server, cfg.Server)
			require.Equal(t, fileToken, cfg.Token.Reveal())
			if tc.warning != "" {
				require.Len(t, cfg.Warnings, 1)
				require.Contains(t, cfg.Warnings[0], tc.warning)
			} else {
				require.Empty(t, cfg.Warnings)
			}
		})
	}
}

func TestLoad_MissingConfigFile(t *testing.T) {
	t.Parallel()
	_, err := config.Load([]string{"--config", "/nonexistent/agent.env"}, env(nil))
	require.ErrorContains(t, err, "/nonexistent/agent.env does not exist")
}

func TestLoad_WarnsWhenOthersMayReadTheToken(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "GPUNEX_SERVER=https://gpunex.example.com\nGPUNEX_TOKEN="+fileToken+"\n")
	require.NoError(t, os.Chmod(file, 0o644))
	cfg, err := config.Load([]string{"--config", file}, env(nil))
	require.NoError(t, err)
	require.Len(t, cfg.Warnings, 1)
	require.Contains(t, cfg.Warnings[0], "chmod 600 "+file)
}

func TestLoad_WarnsWhenTheTokenIsGivenOnTheCommandLine(t *testing.T) {
	t.Parallel()
	const server = "https://gpunex.example.com"
	file := writeFile(t, "GPUNEX_SERVER="+server+"\nGPUNEX_TOKEN="+fileToken+"\n")
	for _, tc := range []struct {
		desc   string
		args   []string
		env    map[string]string
		origin config.Origin
		warned bool
	}{
		{"--token", []string{"--server", server, "--token", flagToken}, nil, config.FromFlag, true},
		{"--token over GPUNEX_TOKEN and the file", []string{"--config", file, "--token", flagToken},
			map[string]string{"GPUNEX_TOKEN": envToken}, config.FromFlag, true},
		{"GPUNEX_TOKEN", []string{"--server", server}, map[string]string{"GPUNEX_TOKEN": envToken}, config.FromEnv, false},
		{"GPUNEX_TOKEN over the file", []string{"--config", file}, map[string]string{"GPUNEX_TOKEN": envToken}, config.FromEnv, false},
		{"the config file", []string{"--config", file}, nil, config.FromFile, false},
		{"the file named by GPUNEX_CONFIG", nil, map[string]string{"GPUNEX_CONFIG": file}, config.FromFile, false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Load(tc.args, env(tc.env))
			require.NoError(t, err)
			require.Equal(t, tc.origin, cfg.Origins["GPUNEX_TOKEN"])
			if !tc.warned {
				require.Empty(t, cfg.Warnings)
				return
			}
			require.Len(t, cfg.Warnings, 1, "one warning")
			w := cfg.Warnings[0]
			for _, want := range []string{"--token", "/proc/<pid>/cmdline", "GPUNEX_TOKEN environment variable", "config file"} {
				require.Contains(t, w, want)
			}
			for _, tok := range []string{flagToken, envToken, fileToken, "FLAGFLAG", "ENVENV", "FILEFILE"} {
				require.NotContains(t, w, tok, "the warning never shows a token")
			}
		})
	}
}

func TestToken_IsRedactedEverywhere(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load([]string{"--server", "https://gpunex.example.com", "--token", flagToken}, env(nil))
	require.NoError(t, err)

	var logs strings.Builder
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "config", cfg, "token", cfg.Token)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "config", cfg, "token", cfg.Token)
	j, err := json.Marshal(cfg)
	require.NoError(t, err)
	for _, s := range []string{
		logs.String(), string(j),
		fmt.Sprintf("%v %+v %#v %s %q %x", cfg, cfg, cfg, cfg.Token, cfg.Token, cfg.Token),
		fmt.Sprint(*cfg), errors.New(cfg.Token.Redact("echo " + flagToken)).Error(),
	} {
		require.NotContains(t, s, flagToken)
		require.NotContains(t, s, "FLAGFLAG")
	}
	require.Contains(t, logs.String(), config.Redacted)
	require.Equal(t, flagToken, cfg.Token.Reveal())
}

func TestLoad_BenchSettings(t *testing.T) {
	t.Parallel()
	base := []string{"--server", "https://gpunex.example.com", "--token", flagToken}
	tests := []struct {
		desc    string
		args    []string
		env     map[string]string
		bytes   int64
		budget  time.Duration
		library string
		sim     time.Duration
		err     string
	}{
		{desc: "defaults", budget: 50 * time.Second},
		{desc: "flags", args: []string{"--bench-storage-bytes", "512MiB", "--bench-gpu-budget", "2m", "--cuda-library", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
			bytes: 512 << 20, budget: 2 * time.Minute, library: "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
		{desc: "environment", env: map[string]string{"GPUNEX_BENCH_STORAGE_BYTES": "16777216", "GPUNEX_BENCH_GPU_BUDGET": "30s", "GPUNEX_CUDA_LIBRARY": "libcuda.so"},
			bytes: 16 << 20, budget: 30 * time.Second, library: "libcuda.so"},
		{desc: "decimal units", args: []string{"--bench-storage-bytes", "1GB"}, bytes: 1e9, budget: 50 * time.Second},
		{desc: "not a size", args: []string{"--bench-storage-bytes", "lots"}, err: `--bench-storage-bytes (GPUNEX_BENCH_STORAGE_BYTES): want a size such as 256MiB or 1GiB; got "lots"`},
		{desc: "too small", args: []string{"--bench-storage-bytes", "4KiB"}, err: "at least 1 MiB"},
		{desc: "too big", args: []string{"--bench-storage-bytes", "1000GiB"}, err: "at most 64 GiB"},
		{desc: "not a duration", args: []string{"--bench-gpu-budget", "50"}, err: `--bench-gpu-budget (GPUNEX_BENCH_GPU_BUDGET): want a duration such as 50s or 2m; got "50"`},
		{desc: "budget too long", env: map[string]string{"GPUNEX_BENCH_GPU_BUDGET": "1h"}, err: "from the environment: must be between 5s and 10m0s; got 1h0m0s"},
		{desc: "simulated duration", args: []string{"--simulated-bench-duration", "4s"}, budget: 50 * time.Second, sim: 4 * time.Second},
		{desc: "simulated duration past the shortest budget", env: map[string]string{"GPUNEX_SIMULATED_BENCH_DURATION": "6s"},
			err: "--simulated-bench-duration (GPUNEX_SIMULATED_BENCH_DURATION) from the environment: must be between 10ms and 5s; got 6s"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Load(append(append([]string{}, base...), tc.args...), env(tc.env))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.bytes, cfg.BenchStorageBytes)
			require.Equal(t, tc.budget, cfg.BenchGPUBudget)
			require.Equal(t, tc.library, cfg.CUDALibrary)
			sim := tc.sim
			if sim == 0 {
				sim = 600 * time.Millisecond
			}
			require.Equal(t, sim, cfg.SimulatedBenchDuration)
		})
	}
}

func TestLoad_SimulateProfilesAreValidated(t *testing.T) {
	t.Parallel()
	base := []string{"--server", "https://gpunex.example.com", "--token", flagToken}
	cfg, err := config.Load(append(base, "--simulate", "1xH100:throttled,1xL4:slow-disk"), env(nil))
	require.NoError(t, err)
	require.Equal(t, "1xH100:throttled,1xL4:slow-disk", cfg.Simulate)
	_, err = config.Load(append(base, "--simulate", "1xH100:melting"), env(nil))
	require.ErrorContains(t, err, "--simulate (GPUNEX_SIMULATE)")
	require.ErrorContains(t, err, `unknown profile "melting"; known: healthy, throttled`)
	var b strings.Builder
	config.Usage(&b)
	for _, want := range []string{"-bench-storage-bytes", "GPUNEX_BENCH_STORAGE_BYTES", "-bench-gpu-budget", "GPUNEX_BENCH_GPU_BUDGET", "50s",
		"-cuda-library", "GPUNEX_CUDA_LIBRARY", "slow-network"} {
		require.Contains(t, b.String(), want)
	}
}
