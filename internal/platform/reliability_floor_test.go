package platform_test

import (
	"context"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/platform"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/reliability"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// startWithFloor runs a platform on database ("sqlite" or "postgres")
// with the reliability floor set (serve --reliability-floor; 0 is the
// default): platformtest.Options has no reliability settings.
func startWithFloor(t *testing.T, database string, floor int) *platformtest.Server {
	t.Helper()
	cfg := platform.Config{Addr: "127.0.0.1:0", PasswordParams: authtest.Params, Logger: slog.New(slog.DiscardHandler), DataDir: t.TempDir(),
		SPA: fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>GPUnex test SPA</title>")}}, Reliability: reliability.Config{Floor: floor}}
	if database == "postgres" {
		cfg.DatabaseURL = storetest.PostgresURL(t)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := platform.New(ctx, cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	urlc := make(chan string, 1)
	go func() { done <- p.ServeListener(ctx, ln, func(u string) { urlc <- u }) }()
	s := &platformtest.Server{URL: <-urlc, Platform: p, DatabaseURL: cfg.DatabaseURL}
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		p.Close()
	})
	return s
}

// The admins' providersByReliability carries the server's floor and flag:
// at --reliability-floor 95 a provider at the new provider's prior (94,
// above the default 70) is under the floor; at the default it is not.
func TestProvidersByReliabilityFlagsAtTheConfiguredFloor(t *testing.T) {
	t.Parallel()
	for _, database := range []string{"sqlite", "postgres"} {
		for _, c := range []struct {
			flag, floor int
			below       bool
		}{{flag: 95, floor: 95, below: true}, {flag: 0, floor: 70, below: false}} {
			t.Run(database+"/floor="+strconv.Itoa(c.floor), func(t *testing.T) {
				t.Parallel()
				s := startWithFloor(t, database, c.flag)
				ctx := context.Background()
				p := s.NewProvider(t, "Flora")
				now := time.Now().UTC()
				_, err := s.Platform.DB.NewInsert().Model(&models.Machine{ProviderID: p.ID, MachineID: "m-floor", Hostname: "floor-01", AgentVersion: "1",
					Status: models.MachineOnline, StatusChangedAt: now, RegisteredAt: now, UpdatedAt: now}).Exec(ctx)
				require.NoError(t, err)
				require.NoError(t, s.Platform.Reliability.Refresh(ctx))

				admin := adminClient(t, s, "Ada")
				var ans struct {
					ProvidersByReliability []struct {
						ProviderID string
						Score      int
						Floor      int
						BelowFloor bool
					}
				}
				admin.MustDo(&ans, `{ providersByReliability { providerId score floor belowFloor } }`, nil)
				require.Len(t, ans.ProvidersByReliability, 1)
				got := ans.ProvidersByReliability[0]
				require.Equal(t, strconv.FormatInt(p.ID, 10), got.ProviderID)
				require.Greater(t, got.Score, 70, "above the default floor")
				require.Less(t, got.Score, 95, "under the configured one")
				require.Equal(t, c.floor, got.Floor)
				require.Equal(t, c.below, got.BelowFloor)

				// The provider's own summary agrees.
				var mine struct {
					MyProvider struct {
						Reliability struct {
							Floor      int
							BelowFloor bool
						}
					}
				}
				p.User.MustDo(&mine, `{ myProvider { reliability { floor belowFloor } } }`, nil)
				require.Equal(t, c.floor, mine.MyProvider.Reliability.Floor)
				require.Equal(t, c.below, mine.MyProvider.Reliability.BelowFloor)
			})
		}
	}
}
