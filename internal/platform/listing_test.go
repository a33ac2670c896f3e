package platform_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// marketplaceErrorsQuery asks for the marketplace's userErrors beside its
// listings.
const marketplaceErrorsQuery = `query M($filter: MarketplaceFilter) {
  marketplace(filter: $filter) { edges { node { id } } userErrors { field code message } } }`

type marketplaceErrors struct {
	Marketplace struct {
		Edges      []struct{ Node struct{ ID string } }
		UserErrors []struct{ Field, Code, Message string }
	}
}

// Issue 26: through the API a listing shows the provider's name, the
// agent's claims (driver, CUDA), what the platform's benchmarks measured
// (TFLOPS against the datasheet, network, storage), the reliability score's
// parts and when the schedule closes; a bad filter is a coded userError
// naming its field and lists nothing.
func TestMarketplaceListingsHelpChooseThroughTheAPI(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		ctx := context.Background()
		p := s.NewProvider(t, "choose")
		marketMachine(t, s, p, "choose-machine", 1, 100, 2_000_000)
		var m models.Machine
		require.NoError(t, s.Platform.DB.NewSelect().Model(&m).Where("provider_id = ?", p.ID).Scan(ctx))
		_, err := s.Platform.DB.NewUpdate().Model((*models.Machine)(nil)).Set("driver_version = ?, cuda_version = ?", "550.54", "12.4").
			Where("id = ?", m.ID).Exec(ctx)
		require.NoError(t, err)
		now := time.Now().UTC()
		val := func(v float64) *float64 { return &v }
		run := &models.BenchmarkRun{RunID: "choose-run", MachineID: m.ID, ProviderID: p.ID, Reason: protocol.BenchScheduled,
			State: models.BenchmarkRunCompleted, RequestedAt: now, FinishedAt: &now,
			Network: &models.BenchmarkSection{Outcome: protocol.BenchCompleted, Figures: []models.BenchmarkFigure{
				{Metric: protocol.MetricNetworkDownload, Supported: true, Measured: val(940), Passed: true},
				{Metric: protocol.MetricNetworkUpload, Supported: true, Measured: val(480), Passed: true}}}}
		_, err = s.Platform.DB.NewInsert().Model(run).Returning("id").Exec(ctx)
		require.NoError(t, err)
		var gpu models.MachineGpu
		require.NoError(t, s.Platform.DB.NewSelect().Model(&gpu).Where("machine_id = ?", m.ID).Scan(ctx))
		gb := &models.GpuBenchmark{RunRowID: run.ID, GpuID: gpu.ID, MachineID: m.ID, Reason: protocol.BenchScheduled, At: now,
			Outcome: protocol.BenchCompleted, Passed: true, Figures: []models.BenchmarkFigure{
				{Metric: protocol.MetricTensorBF16, Supported: true, Measured: val(700), Reference: val(989.5), Passed: true}},
			Shortfalls: []models.BenchmarkFigure{}, Guidance: []models.BenchmarkGuidance{}}
		_, err = s.Platform.DB.NewInsert().Model(gb).Returning("id").Exec(ctx)
		require.NoError(t, err)
		_, err = s.Platform.DB.NewUpdate().Model((*models.GpuBenchStatus)(nil)).Set("latest_id = ?", gb.ID).Where("gpu_id = ?", gpu.ID).Exec(ctx)
		require.NoError(t, err)
		// The leader's reliability job runs as the server starts: once it
		// has, nothing scores the provider over the test's figure. An
		// upsert: it may have scored the new provider already.
		await.True(t, func() bool { return s.Platform.Reliability.Refreshes() > 0 }, "the reliability job's first run")
		_, err = s.Platform.DB.NewInsert().Model(&models.ReliabilityProvider{ProviderID: p.ID, Score: 93, UpdatedAt: now}).
			On("CONFLICT (provider_id) DO UPDATE").Set("score = EXCLUDED.score").Exec(ctx)
		require.NoError(t, err)
		// The agent reports its host over registerMachine (issue 26): a
		// figure out of range is refused naming its field; the rest is
		// listed as the provider's claim.
		agent := s.NewAPIClient(t, p.AgentToken)
		hostInput := func(host map[string]any) map[string]any {
			return map[string]any{"i": map[string]any{"machineId": "choose-machine", "hostname": "host-choose-machine", "agentVersion": "1",
				"gpus": []any{map[string]any{"uuid": "GPU-choose-machine-0", "index": 0, "name": "NVIDIA H100 80GB HBM3", "simulated": true,
					"driverVersion": "550.54", "cudaDriverVersion": "12.4"}},
				"host": host}}
		}
		var reg struct {
			RegisterMachine struct {
				UserErrors []struct{ Field, Code string }
			}
		}
		agent.MustDo(&reg, `mutation($i: RegisterMachineInput!) { registerMachine(input: $i) { userErrors { field code } } }`,
			hostInput(map[string]any{"cpuCores": 0, "ramBytes": 1e9}))
		require.Equal(t, []struct{ Field, Code string }{{"input.host.cpuCores", "OUT_OF_RANGE"}}, reg.RegisterMachine.UserErrors)
		agent.MustDo(&reg, `mutation($i: RegisterMachineInput!) { registerMachine(input: $i) { userErrors { field code } } }`,
			hostInput(map[string]any{"cpuModel": "AMD EPYC 9654 96-Core Processor", "cpuCores": 192, "ramBytes": 1649267441664.0,
				"diskBytes": 7.68e12, "diskFreeBytes": 6.1e12}))
		require.Empty(t, reg.RegisterMachine.UserErrors)

		anon := s.NewAPIClient(t, "")
		var got struct {
			Marketplace struct {
				Edges []struct {
					Node struct {
						ProviderName, DriverVersion, CudaVersion string
						PerformanceScore                         int
						Performance                              struct {
							Metric                                 string
							MeasuredTflops, DatasheetTflops, Ratio float64
							TflopsPerDollar                        float64
						}
						Measured         struct{ NetworkDownMbps, NetworkUpMbps float64 }
						ReliabilityScore int
						ReliabilityParts *struct{ Uptime, Completion, Consistency float64 }
						ScheduleClosesAt *time.Time
						CPUModel         *string
						CPUCores         *int
						RAMBytes         *float64
						DiskBytes        *float64
					}
				}
				UserErrors []struct{ Field string }
			}
		}
		anon.MustDo(&got, `{ marketplace { edges { node { providerName driverVersion cudaVersion performanceScore
			performance { metric measuredTflops datasheetTflops ratio tflopsPerDollar }
			measured { networkDownMbps networkUpMbps } reliabilityScore reliabilityParts { uptime completion consistency }
			scheduleClosesAt cpuModel cpuCores ramBytes diskBytes } } userErrors { field } } }`, nil)
		require.Empty(t, got.Marketplace.UserErrors)
		require.Len(t, got.Marketplace.Edges, 1)
		n := got.Marketplace.Edges[0].Node
		require.Equal(t, "550.54", n.DriverVersion)
		require.Equal(t, "12.4", n.CudaVersion)
		require.NotEmpty(t, n.ProviderName)
		require.Equal(t, 100, n.PerformanceScore)
		require.Equal(t, "TENSOR_BF16_TFLOPS", n.Performance.Metric)
		require.InDelta(t, 700, n.Performance.MeasuredTflops, 1e-9)
		require.InDelta(t, 989.5, n.Performance.DatasheetTflops, 1e-9)
		require.InDelta(t, 700/989.5, n.Performance.Ratio, 1e-9)
		require.InDelta(t, 350, n.Performance.TflopsPerDollar, 1e-9)
		require.InDelta(t, 940, n.Measured.NetworkDownMbps, 1e-9)
		require.InDelta(t, 480, n.Measured.NetworkUpMbps, 1e-9)
		require.Equal(t, 93, n.ReliabilityScore)
		require.NotNil(t, n.ReliabilityParts, "the score's parts")
		require.Nil(t, n.ScheduleClosesAt, "no schedule: open with no end")
		require.Equal(t, "AMD EPYC 9654 96-Core Processor", *n.CPUModel)
		require.Equal(t, 192, *n.CPUCores)
		require.InDelta(t, 1649267441664.0, *n.RAMBytes, 0, "1.5 TiB")
		require.InDelta(t, 7.68e12, *n.DiskBytes, 0)

		for _, tc := range []struct {
			desc   string
			filter map[string]any
			field  string
			code   string
		}{
			{"a country name cut short", map[string]any{"country": "Po"}, "filter.country", "INVALID"},
			{"reliability over 100", map[string]any{"minReliability": 101}, "filter.minReliability", "OUT_OF_RANGE"},
		} {
			var bad marketplaceErrors
			anon.MustDo(&bad, marketplaceErrorsQuery, map[string]any{"filter": tc.filter})
			require.Empty(t, bad.Marketplace.Edges, tc.desc)
			require.Len(t, bad.Marketplace.UserErrors, 1, tc.desc)
			require.Equal(t, tc.field, bad.Marketplace.UserErrors[0].Field, tc.desc)
			require.Equal(t, tc.code, bad.Marketplace.UserErrors[0].Code, tc.desc)
		}
	})
}
