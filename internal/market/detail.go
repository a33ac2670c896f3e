package market

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/reliability"
	"github.com/gpunex/gpunex/models"
)

// Reliability tells the parts of providers' reliability scores
// (reliability's ComponentsOf).
type Reliability interface {
	ComponentsOf(ctx context.Context, providerIDs []int64) (map[int64]reliability.Components, error)
}

// SetReliability makes listings carry the parts of their provider's
// reliability score. Call it while assembling the platform (reliability
// is built after the market).
func (s *Service) SetReliability(r Reliability) { s.reliability = r }

// describe fills in the measured TFLOPS of a page's listings (the latest
// benchmark of every free, listed GPU on the page's machines, read in one
// statement whatever the page's size) and the parts of their providers'
// reliability scores (see describeReliability). (The page's own statement brings
// the provider's name, the agent's versions and the machine's measured
// network and storage.)
func (s *Service) describe(ctx context.Context, listings []*Listing) error {
	if len(listings) == 0 {
		return nil
	}
	machineIDs := make([]int64, 0, len(listings))
	for _, l := range listings {
		machineIDs = append(machineIDs, l.MachineID)
	}
	var gpus []struct {
		MachineID int64                    `bun:"machine_id"`
		ModelKey  string                   `bun:"model_key"`
		Figures   []models.BenchmarkFigure `bun:"figures,type:text"`
	}
	if err := s.deps.DB.NewSelect().TableExpr("machine_gpus AS mg").
		ColumnExpr("mg.machine_id, mg.model_key, gb.figures").
		Join("JOIN gpu_bench_status AS gbs ON gbs.gpu_id = mg.id AND gbs.listing = ?", models.GpuListingListed).
		Join("JOIN gpu_benchmarks AS gb ON gb.id = gbs.latest_id").
		Where("mg.machine_id IN (?) AND mg.removed_at IS NULL", bun.List(machineIDs)).
		Where("NOT EXISTS (SELECT 1 FROM gpu_allocations ga WHERE ga.gpu_id = mg.id)").
		Scan(ctx, &gpus); err != nil {
		return fmt.Errorf("market: unable to read the listings' benchmarks: %w", err)
	}
	type key struct {
		machineID int64
		modelKey  string
	}
	figures := map[key][][]models.BenchmarkFigure{}
	for _, g := range gpus {
		k := key{g.MachineID, g.ModelKey}
		figures[k] = append(figures[k], g.Figures)
	}
	for _, l := range listings {
		l.Performance = performanceOf(figures[key{l.MachineID, l.ModelKey}], l.PricePerHour)
	}
	return s.describeReliability(ctx, listings)
}

// describeReliability gives the listings of scored providers their
// score's parts, in two statements for the page (none when no provider
// on it is scored yet).
func (s *Service) describeReliability(ctx context.Context, listings []*Listing) error {
	if s.reliability == nil {
		return nil
	}
	var ids []int64
	seen := map[int64]bool{}
	for _, l := range listings {
		if l.ReliabilityScore != nil && !seen[l.ProviderID] {
			seen[l.ProviderID] = true
			ids = append(ids, l.ProviderID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	parts, err := s.reliability.ComponentsOf(ctx, ids)
	if err != nil {
		return fmt.Errorf("market: %w", err)
	}
	for _, l := range listings {
		if c, ok := parts[l.ProviderID]; ok && l.ReliabilityScore != nil {
			l.ReliabilityParts = &c
		}
	}
	return nil
}

// performanceOf is the lowest headline TFLOPS (models.HeadlineFigure)
// among gpus (each GPU's latest figures), the figure the
// PERFORMANCE_PER_DOLLAR sort orders by (gpu_bench_status.tflops); nil when
// a GPU measured none.
func performanceOf(gpus [][]models.BenchmarkFigure, price models.USDC) *Performance {
	var low *models.BenchmarkFigure
	for _, figs := range gpus {
		f := models.HeadlineFigure(figs)
		if f == nil {
			return nil
		}
		if low == nil || *f.Measured < *low.Measured {
			low = f
		}
	}
	if low == nil {
		return nil
	}
	p := &Performance{Metric: string(low.Metric), MeasuredTflops: *low.Measured, DatasheetTflops: low.Reference}
	if low.Reference != nil && *low.Reference > 0 {
		r := *low.Measured / *low.Reference
		p.Ratio = &r
	}
	if micros := int64(price); micros > 0 {
		// n GPUs' TFLOPS over n GPUs' price: per GPU, per USDC an hour. A
		// display figure, as the sort's key is in SQL: the rate's
		// micro-USDC (far under 2^53, so exact as a float) divide a
		// measurement, never an amount.
		p.TflopsPerDollar = p.MeasuredTflops * float64(models.MicrosPerUSDC) / float64(micros)
	}
	return p
}

// measuredOf reads a run's network and storage medians.
func measuredOf(at *time.Time, network, storage *models.BenchmarkSection) *Measured {
	m := &Measured{}
	if at != nil {
		t := at.UTC()
		m.At = &t
	}
	for _, sec := range []*models.BenchmarkSection{network, storage} {
		if sec == nil {
			continue
		}
		for _, f := range sec.Figures {
			if !f.Supported || f.Measured == nil {
				continue
			}
			v := *f.Measured
			switch f.Metric {
			case protocol.MetricNetworkDownload:
				m.NetworkDownMbps = &v
			case protocol.MetricNetworkUpload:
				m.NetworkUpMbps = &v
			case protocol.MetricStorageRead:
				m.StorageReadMBps = &v
			case protocol.MetricStorageWrite:
				m.StorageWriteMBps = &v
			}
		}
	}
	return m
}
