package market

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// benchmark records a completed run of m measuring network and storage,
// and a benchmark of each of its GPUs with tflops[i] as its tensor BF16
// and FP32 medians against datasheet, as bench records a result (the
// GPU's latest run and its headline figure in gpu_bench_status).
func (b *bundle) benchmark(t *testing.T, m machine, datasheet float64, tflops ...float64) {
	t.Helper()
	now := b.clock.Now()
	fig := func(metric protocol.BenchMetric, v float64, ref *float64) models.BenchmarkFigure {
		return models.BenchmarkFigure{Metric: metric, Supported: true, Measured: &v, Reference: ref, Passed: true}
	}
	run := &models.BenchmarkRun{RunID: fmt.Sprintf("run-%d", m.id), MachineID: m.id, ProviderID: m.owner.id, Reason: protocol.BenchScheduled,
		State: models.BenchmarkRunCompleted, RequestedAt: now, StartedAt: &now, FinishedAt: &now,
		Network: &models.BenchmarkSection{Outcome: protocol.BenchCompleted, Figures: []models.BenchmarkFigure{
			fig(protocol.MetricNetworkDownload, 940, nil), fig(protocol.MetricNetworkUpload, 480, nil)}},
		Storage: &models.BenchmarkSection{Outcome: protocol.BenchCompleted, Figures: []models.BenchmarkFigure{
			fig(protocol.MetricStorageRead, 3100, nil), fig(protocol.MetricStorageWrite, 2500, nil)}}}
	_, err := b.db.NewInsert().Model(run).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	for i, g := range m.gpus {
		gb := &models.GpuBenchmark{RunRowID: run.ID, GpuID: g.ID, MachineID: m.id, Reason: protocol.BenchScheduled, At: now,
			Outcome: protocol.BenchCompleted, Passed: true, Figures: []models.BenchmarkFigure{
				fig(protocol.MetricTensorBF16, tflops[i], &datasheet), fig(protocol.MetricFP32, tflops[i]/10, nil)},
			Shortfalls: []models.BenchmarkFigure{}, Guidance: []models.BenchmarkGuidance{}}
		_, err := b.db.NewInsert().Model(gb).Returning("id").Exec(b.ctx)
		require.NoError(t, err)
		_, err = b.db.NewUpdate().Model((*models.GpuBenchStatus)(nil)).Set("latest_id = ?, tflops = ?", gb.ID, tflops[i]).Where("gpu_id = ?", g.ID).Exec(b.ctx)
		require.NoError(t, err)
	}
}

// Issue 26: a listing shows what the platform measured (TFLOPS against the
// datasheet, network and storage) beside what the provider's agent claims
// (driver, CUDA, CPU, RAM, disk), the provider's name, and when its schedule closes.
func TestListingShowsMeasuredFiguresBesideTheProvidersClaims(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		now := b.clock.Now()
		p := b.provider(t, providerSpec{city: "Lisbon", country: "PT"})
		// Both machines score 100 (healthy for their model); their
		// measured TFLOPS differ.
		fast := b.machine(t, p, h100, 2, 100, 2_000_000)
		b.benchmark(t, fast, 989.5, 700, 690)
		slow := b.machine(t, p, h100, 1, 100, 2_000_000)
		b.benchmark(t, slow, 989.5, 600)
		bare := b.machine(t, p, h100, 1, 100, 2_000_000)
		_, err := db.NewUpdate().Model((*models.Machine)(nil)).Set("driver_version = ?, cuda_version = ?", "550.54", "12.4").Where("id = ?", fast.id).Exec(b.ctx)
		require.NoError(t, err)
		_, err = db.NewUpdate().Model((*models.Machine)(nil)).Set("cpu_model = ?, cpu_cores = ?, ram_bytes = ?, disk_bytes = ?, disk_free_bytes = ?",
			"AMD EPYC 9654 96-Core Processor", 192, 1536.0*(1<<30), 7.68e12, 6.1e12).Where("id = ?", fast.id).Exec(b.ctx)
		require.NoError(t, err)
		closes := now.Add(5 * time.Hour).Truncate(time.Second)
		_, err = db.NewInsert().Model(&models.ProviderSchedule{ProviderID: p.id, Availability: models.Availability{Kind: models.AvailabilityWeekly,
			Windows: []*models.AvailabilityWindow{}}, OpenFrom: ptr(now.Add(-time.Hour)), OpenUntil: &closes, UpdatedAt: now}).Exec(b.ctx)
		require.NoError(t, err)

		byMachine := map[int64]*Listing{}
		for _, l := range b.list(t, Filter{}, SortRank) {
			byMachine[l.MachineID] = l
		}
		f := byMachine[fast.id]
		require.NotNil(t, f)
		require.Equal(t, "P", f.ProviderName)
		require.Equal(t, ptr("550.54"), f.DriverVersion)
		require.Equal(t, ptr("12.4"), f.CudaVersion)
		require.Equal(t, ptr("AMD EPYC 9654 96-Core Processor"), f.CPUModel)
		require.Equal(t, ptr(192), f.CPUCores)
		require.InDelta(t, 1536.0*(1<<30), *f.RAMBytes, 0)
		require.InDelta(t, 7.68e12, *f.DiskBytes, 0)
		require.NotNil(t, f.Performance)
		require.Equal(t, string(protocol.MetricTensorBF16), f.Performance.Metric)
		require.InDelta(t, 690, f.Performance.MeasuredTflops, 1e-9, "the slowest free GPU of the listing")
		require.InDelta(t, 989.5, *f.Performance.DatasheetTflops, 1e-9)
		require.InDelta(t, 690/989.5, *f.Performance.Ratio, 1e-9)
		require.InDelta(t, 345, f.Performance.TflopsPerDollar, 1e-9, "690 TFLOPS at 2 USDC an hour")
		require.NotNil(t, f.Measured)
		require.InDelta(t, 940, *f.Measured.NetworkDownMbps, 1e-9)
		require.InDelta(t, 480, *f.Measured.NetworkUpMbps, 1e-9)
		require.InDelta(t, 3100, *f.Measured.StorageReadMBps, 1e-9)
		require.InDelta(t, 2500, *f.Measured.StorageWriteMBps, 1e-9)
		require.NotNil(t, f.ScheduleClosesAt)
		require.True(t, closes.Equal(*f.ScheduleClosesAt))

		s := byMachine[slow.id]
		require.Equal(t, 100, *s.PerformanceScore)
		require.Equal(t, *f.PerformanceScore, *s.PerformanceScore, "the health score is the same")
		require.Less(t, s.Performance.MeasuredTflops, f.Performance.MeasuredTflops, "the measured figure tells them apart")

		n := byMachine[bare.id]
		require.Nil(t, n.Performance, "not benchmarked: nothing measured to show")

		var perDollar []int64
		for _, l := range b.list(t, Filter{}, SortPerformancePerDollar) {
			perDollar = append(perDollar, l.MachineID)
		}
		require.Equal(t, []int64{fast.id, slow.id, bare.id}, perDollar,
			"most measured TFLOPS per USDC first (345, then 300), whatever the equal health scores; nothing measured last")
		require.Nil(t, n.Measured)
		require.Nil(t, n.DriverVersion)
		require.Nil(t, n.CPUCores, "an agent that does not report its host")
		require.Nil(t, n.RAMBytes)
	})
}

// Issue 26: a filter's bad country or out-of-range number is a userError
// naming the field, and nothing is listed; a code finds providers whose
// country was typed as a name.
func TestMarketplaceFilterNamesTheBadFieldAndListsNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p := b.provider(t, providerSpec{city: "Lisbon", country: "Portugal"})
		b.machine(t, p, h100, 1, 90, 2_000_000)

		for _, tc := range []struct {
			desc  string
			f     Filter
			field string
			code  fault.ProblemCode
		}{
			{"a name is not a code", Filter{Country: ptr("Portugal")}, "filter.country", fault.InvalidValue},
			{"a cut name is not a code", Filter{Country: ptr("Po")}, "filter.country", fault.InvalidValue},
			{"an alpha-3 code is not alpha-2", Filter{Country: ptr("PRT")}, "filter.country", fault.InvalidValue},
			{"an unassigned code", Filter{Country: ptr("XX")}, "filter.country", fault.InvalidValue},
			{"reliability over 100", Filter{MinReliability: ptr(101)}, "filter.minReliability", fault.OutOfRange},
			{"negative performance", Filter{MinPerformance: ptr(-1)}, "filter.minPerformance", fault.OutOfRange},
			{"negative price", Filter{MaxPricePerHour: ptr(models.USDC(-1))}, "filter.maxPricePerHour", fault.OutOfRange},
		} {
			page, err := b.svc.Marketplace(b.ctx, tc.f, SortRank, MaxPageSize, "")
			require.Nil(t, page, tc.desc)
			v, ok := fault.AsValidation(err)
			require.True(t, ok, tc.desc)
			require.Len(t, v.Problems, 1, tc.desc)
			require.Equal(t, tc.field, v.Problems[0].Field, tc.desc)
			require.Equal(t, tc.code, v.Problems[0].Code, tc.desc)
		}

		for _, code := range []string{"PT", "pt"} {
			got := b.list(t, Filter{Country: ptr(code)}, SortRank)
			require.Len(t, got, 1, "%s finds the provider who typed Portugal", code)
		}
		require.Empty(t, b.list(t, Filter{Country: ptr("ES")}, SortRank))
	})
}
