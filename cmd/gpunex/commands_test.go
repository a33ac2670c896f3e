package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store/storetest"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func TestMigrateAndUserCreateOnEveryBackend(t *testing.T) {
	t.Parallel()
	for _, backend := range storetest.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			cfg := storetest.Config(t, backend)
			storage := []string{"--data-dir", cfg.DataDir, "--database-url", cfg.DatabaseURL}
			if cfg.DatabaseURL == "" {
				storage = []string{"--data-dir", cfg.DataDir}
			}
			with := func(args ...string) []string { return append(args, storage...) }

			out, err := runCLI(t, with("migrate", "status")...)
			require.NoError(t, err)
			require.Contains(t, out, "pending")
			require.Contains(t, out, backend)

			out, err = runCLI(t, with("migrate", "up")...)
			require.NoError(t, err)
			require.Contains(t, out, "applied 20261129000001_accounts")

			out, err = runCLI(t, with("migrate", "up")...)
			require.NoError(t, err)
			require.Contains(t, out, "up to date")

			out, err = runCLI(t, with("user", "create", "--email", "Root@Example.com", "--password", "a long admin password", "--admin")...)
			require.NoError(t, err)
			require.Contains(t, out, "<root@example.com>")
			require.Contains(t, out, "ADMIN")

			_, err = runCLI(t, with("user", "create", "--email", "root@example.com", "--password", "a long admin password")...)
			require.ErrorContains(t, err, "already exists")

			_, err = runCLI(t, with("user", "create", "--email", "x@example.com", "--password", "short")...)
			require.ErrorContains(t, err, "--password")

			out, err = runCLI(t, with("migrate", "down")...)
			require.NoError(t, err)
			require.Contains(t, out, "rolled back 20261129000001_accounts")
			out, err = runCLI(t, with("migrate", "status")...)
			require.NoError(t, err)
			require.False(t, strings.Contains(out, "applied ("), out)
		})
	}
}

func TestMigrateRefusesUnknownDirections(t *testing.T) {
	t.Parallel()
	_, err := runCLI(t, "migrate", "sideways", "--data-dir", t.TempDir())
	require.Error(t, err)
}

func TestUnparsableEnvironmentValuesAreRefused(t *testing.T) {
	t.Setenv("GPUNEX_SECURE_COOKIES", "yes please")
	_, err := runCLI(t, "migrate", "status", "--data-dir", t.TempDir())
	require.ErrorContains(t, err, `GPUNEX_SECURE_COOKIES="yes please" is not valid`)
}
