package platform_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/reliability"
	"github.com/gpunex/gpunex/models"
)

// The admins' providersByReliability carries the server's floor and flag:
// at --reliability-floor 95 a provider at the new provider's prior (94,
// above the default 70) is under the floor; at the default it is not.
func TestProvidersByReliabilityFlagsAtTheConfiguredFloor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flag, floor int
		below       bool
	}{{flag: 95, floor: 95, below: true}, {flag: 0, floor: 70, below: false}} {
		t.Run("floor="+strconv.Itoa(c.floor), func(t *testing.T) {
			t.Parallel()
			platformtest.Each(t, platformtest.Options{Reliability: reliability.Config{Floor: c.flag}}, func(t *testing.T, s *platformtest.Server) {
				ctx := context.Background()
				p := s.NewProvider(t, "Flora")
				now := time.Now().UTC()
				_, err := s.Platform.DB.NewInsert().Model(&models.Machine{ProviderID: p.ID, MachineID: "m-floor", Hostname: "floor-01", AgentVersion: "1",
					Status: protocol.MachineOnline, StatusChangedAt: now, RegisteredAt: now, UpdatedAt: now}).Exec(ctx)
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
		})
	}
}
