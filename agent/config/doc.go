// Package config is gpunex-agent's configuration: what server to talk to,
// with which token, where to keep state, and whether to simulate GPUs.
//
// # Where values come from
//
// Every setting is read, in order of precedence, from a command-line flag,
// an environment variable, an env-style file, and a default:
//
//	flag          environment          default
//	--server      GPUNEX_SERVER        (required)
//	--token       GPUNEX_TOKEN         (required)
//	--data-dir    GPUNEX_DATA_DIR      /var/lib/gpunex-agent
//	--simulate    GPUNEX_SIMULATE      (real GPUs through NVML)
//	--hostname    GPUNEX_HOSTNAME      os.Hostname()
//	--log-format  GPUNEX_LOG_FORMAT    json
//	--log-level   GPUNEX_LOG_LEVEL     info
//	--config      GPUNEX_CONFIG        (no file)
//
// The file is the one the installer writes (/etc/gpunex/agent.env): one
// KEY=VALUE per line with the environment names above, blank lines and
// lines starting with '#' ignored, an optional "export " prefix, and
// optional matching quotes around the value. Unknown keys are reported as
// warnings, not errors, so a newer installer never breaks an older agent.
// An empty environment variable or file value counts as unset.
//
// # The token is a secret
//
// The agent token is held as a [Token], which prints, logs and marshals as
// "[redacted]"; only [Token.Reveal] returns it, for the Authorization
// header. No error or warning of this package contains the token, not even
// part of it.
//
// A token given with --token can be read by every user of the host in ps
// and /proc/<pid>/cmdline, so Load then adds a warning (Config.Warnings,
// which main logs once at start) naming the alternatives: the GPUNEX_TOKEN
// environment variable or the config file. A config file holding the token
// that others may read gets a warning too.
//
// # Machine identity
//
// [LoadMachineID] gives the host a random identity the first time the agent
// runs and keeps it in <data-dir>/machine-id (mode 600 in a directory of
// mode 700), so the server recognises the machine across restarts and
// upgrades; the installer mounts the data directory as a volume for that.
package config
