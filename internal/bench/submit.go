package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// Limits on what a result may hold.
const (
	MaxGPUs          = 64
	MaxMeasurements  = 16
	MaxErrorLength   = protocol.MaxBenchErrorRunes
	MaxRepetitions   = 100_000
	MaxRunIDLength   = 64
	maxSamples       = 1_000_000
	maxClockSkew     = 5 * time.Minute
	maxRunDuration   = 24 * time.Hour
	unknownPeakTFLOP = 5_000  // no GPU of this decade reaches it
	unknownPeakGBs   = 20_000 // nor this memory bandwidth
)

var (
	inputPath   = validate.At("input")
	gpusPath    = validate.At("input.gpus")
	runIDRule   = validate.Text{Required: true, MaxRunes: MaxRunIDLength}
	errorRule   = validate.Text{MaxRunes: MaxErrorLength}
	gpusRule    = validate.Items{Max: MaxGPUs}
	measureRule = validate.Items{Max: MaxMeasurements}
	repsRule    = validate.Range[int]{Min: 0, Max: MaxRepetitions}
	samplesRule = validate.Range[int]{Min: 0, Max: maxSamples}
	shareRule   = validate.Range[float64]{Min: 0, Max: 1}
	tempRule    = validate.Range[float64]{Min: -50, Max: 150}
	clockRule   = validate.Range[float64]{Min: 0, Max: 10_000}
	powerRule   = validate.Range[float64]{Min: 0, Max: 5_000}
	genRule     = validate.Range[int]{Min: 1, Max: 8}
	widthRule   = validate.Range[int]{Min: 1, Max: 32}
	eccRule     = validate.Range[float64]{Min: 0, Max: 1e15}
	reasonsRule = validate.Items{Max: 32}
	reasonRule  = validate.Text{Required: true, MaxRunes: 64}
	smRule      = validate.Range[int]{Min: 1, Max: 1024}
	gridRule    = validate.Range[int]{Min: 1, Max: 1024 * protocol.BenchMaxBlocksPerSM}
	scaleRule   = validate.Range[int]{Min: 1, Max: protocol.BenchMaxScale}
	bufferRule  = validate.Range[float64]{Min: 16, Max: 1 << 40}
)

// gpuRow is a current GPU of the submitting machine.
type gpuRow struct {
	ID       int64   `bun:"id"`
	UUID     string  `bun:"uuid"`
	Index    int     `bun:"idx"`
	Name     string  `bun:"name"`
	ModelKey *string `bun:"model_key"`
}

// Submit stores a run's result for agent's machine, scores every GPU and
// lists or delists it, telling the provider of each listing change in the
// app and by email. A run id is accepted once, and only for a run asked of
// that machine; anything invalid is refused whole and changes nothing.
func (s *Service) Submit(ctx context.Context, agent *auth.Agent, in protocol.BenchmarkResultInput) error {
	var v fault.Validation
	runIDRule.Check(&v, inputPath.Field("runId"), in.RunID)
	if err := v.Err(); err != nil {
		return err
	}
	machineID, run, err := s.machineRun(ctx, agent, in.MachineID, in.RunID)
	if err != nil {
		return err
	}
	switch {
	case run.State == models.BenchmarkRunCompleted:
		v.Add("input.runId", fault.Duplicate, "this run's result is already stored")
		return v.Err()
	case run.RefusedAt != nil:
		v.Add("input.runId", fault.InvalidState, "this run's result was refused (the provider was told why); a run answers once, and the next run is asked as usual")
		return v.Err()
	}
	byUUID, err := s.machineGPUs(ctx, machineID)
	if err != nil {
		return err
	}
	now := s.deps.Clock.Now()
	if err := s.validate(&in, byUUID, now); err != nil {
		return err
	}
	if err := s.cfg.Thresholds.verify(&in, byUUID, run.Nonce); err != nil {
		refusal, _ := fault.AsValidation(err)
		if rerr := s.refuse(ctx, run, refusal); rerr != nil {
			return rerr
		}
		return err
	}
	return s.store(ctx, run, in, byUUID, now)
}

// machineRun resolves agent's machine (the agent's id for it) and the run
// runID asked of it; a run of another machine, or none, is refused at
// input.runId as if it did not exist.
func (s *Service) machineRun(ctx context.Context, agent *auth.Agent, machine, runID string) (int64, *models.BenchmarkRun, error) {
	machineID, err := s.deps.Fleet.ResolveMachine(ctx, agent, machine)
	if err != nil {
		return 0, nil, err
	}
	run := new(models.BenchmarkRun)
	err = s.deps.DB.NewSelect().Model(run).Where("run_uid = ?", runID).Scan(ctx)
	switch {
	case store.IsNoRows(err) || (err == nil && run.MachineID != machineID):
		var v fault.Validation
		v.Add("input.runId", fault.InvalidValue, "no benchmark run with this id was asked of this machine")
		return 0, nil, v.Err()
	case err != nil:
		return 0, nil, fmt.Errorf("bench: unable to load run: %w", err)
	}
	return machineID, run, nil
}

// machineGPUs are machine id's current GPUs by UUID.
func (s *Service) machineGPUs(ctx context.Context, machineID int64) (map[string]gpuRow, error) {
	var gpus []gpuRow
	if err := s.deps.DB.NewSelect().Model((*models.MachineGpu)(nil)).Column("id", "uuid", "idx", "name", "model_key").
		Where("machine_id = ? AND removed_at IS NULL", machineID).Scan(ctx, &gpus); err != nil {
		return nil, fmt.Errorf("bench: unable to load GPUs: %w", err)
	}
	byUUID := make(map[string]gpuRow, len(gpus))
	for _, g := range gpus {
		byUUID[g.UUID] = g
	}
	return byUUID, nil
}

// validate checks a result against the rules and the machine's GPUs.
func (s *Service) validate(in *protocol.BenchmarkResultInput, byUUID map[string]gpuRow, now time.Time) error {
	var v fault.Validation
	if in.StartedAt.IsZero() || in.FinishedAt.Before(in.StartedAt) || in.FinishedAt.Sub(in.StartedAt) > maxRunDuration {
		v.Add("input.finishedAt", fault.OutOfRange, "must be after startedAt, within a day of it")
	}
	validate.NotAfter(&v, inputPath.Field("finishedAt"), in.FinishedAt, now.Add(maxClockSkew))
	if gpusRule.Check(&v, inputPath.Field("gpus"), len(in.Gpus)) {
		seen := map[string]bool{}
		for i := range in.Gpus {
			g := &in.Gpus[i]
			p := gpusPath.Index(i)
			row, ok := byUUID[g.UUID]
			switch {
			case !ok:
				v.Add(p.Field("uuid").String(), fault.InvalidValue, "not a current GPU of this machine")
			case seen[g.UUID]:
				v.Add(p.Field("uuid").String(), fault.Duplicate, "each GPU appears once")
			}
			seen[g.UUID] = true
			checkOutcome(&v, p, g.Outcome, g.Error)
			model := ModelFor(row.ModelKey, row.Name)
			checkMeasurements(&v, p.Field("measurements"), g.Measurements, protocol.GPUMetrics, func(m protocol.BenchMetric) float64 {
				if ref := reference(model, m); ref != nil {
					return *ref * PhysicalMargin
				}
				if strings.HasSuffix(string(m), "_TFLOPS") {
					return unknownPeakTFLOP
				}
				return unknownPeakGBs
			})
			if g.Outcome == protocol.BenchCompleted && len(g.Measurements) == 0 {
				v.Add(p.Field("measurements").String(), fault.Required, "a completed GPU run reports its measurements")
			}
			if ev := g.Evidence; ev != nil {
				checkEvidence(&v, p.Field("evidence"), ev)
			}
		}
	}
	for _, sec := range []struct {
		name    string
		in      *protocol.BenchSection
		metrics []protocol.BenchMetric
	}{{"network", in.Network, protocol.NetworkMetrics}, {"storage", in.Storage, protocol.StorageMetrics}} {
		if sec.in == nil {
			continue
		}
		p := inputPath.Field(sec.name)
		checkOutcome(&v, p, sec.in.Outcome, sec.in.Error)
		checkMeasurements(&v, p.Field("measurements"), sec.in.Measurements, sec.metrics, func(m protocol.BenchMetric) float64 { return machineCeilings[m] })
	}
	return v.Err()
}

func checkOutcome(v *fault.Validation, p validate.Path, o protocol.BenchOutcome, msg *string) {
	switch o {
	case protocol.BenchCompleted, protocol.BenchFailed, protocol.BenchPostponed:
	default:
		v.Add(p.Field("outcome").String(), fault.InvalidValue, "not a BenchmarkOutcome")
	}
	if msg != nil {
		errorRule.Check(v, p.Field("error"), *msg)
	}
	if o != protocol.BenchCompleted && (msg == nil || *msg == "") {
		v.Add(p.Field("error").String(), fault.Required, "a failed or postponed part says why")
	}
}

// checkMeasurements checks each figure: a metric of its section, once,
// finite, not negative, min ≤ median ≤ max, and at most ceiling (far
// above any physical peak is refused, not capped); and its launch and
// checksum, which only a supported GPU metric has (checkLaunch).
func checkMeasurements(v *fault.Validation, p validate.Path, ms []protocol.BenchMeasurement, allowed []protocol.BenchMetric, ceiling func(protocol.BenchMetric) float64) {
	if !measureRule.Check(v, p, len(ms)) {
		return
	}
	seen := map[protocol.BenchMetric]bool{}
	for i, m := range ms {
		mp := p.Index(i)
		if !slices.Contains(allowed, m.Metric) {
			v.Add(mp.Field("metric").String(), fault.InvalidValue, "not a metric of this part")
			continue
		}
		if seen[m.Metric] {
			v.Add(mp.Field("metric").String(), fault.Duplicate, "each metric appears once")
		}
		seen[m.Metric] = true
		repsRule.Check(v, mp.Field("repetitions"), m.Repetitions)
		checkLaunch(v, mp, m)
		if !m.Supported {
			if m.Median != nil || m.Min != nil || m.Max != nil {
				v.Add(mp.Field("median").String(), fault.InvalidValue, "an unsupported metric has no figures")
			}
			continue
		}
		if m.Median == nil {
			v.Add(mp.Field("median").String(), fault.Required, "a supported metric has a median")
			continue
		}
		r := validate.Range[float64]{Min: 0, Max: ceiling(m.Metric)}
		if !r.Check(v, mp.Field("median"), *m.Median) {
			continue
		}
		r.CheckOptional(v, mp.Field("min"), m.Min)
		r.CheckOptional(v, mp.Field("max"), m.Max)
		if (m.Min != nil && *m.Min > *m.Median) || (m.Max != nil && *m.Max < *m.Median) {
			v.Add(mp.Field("median").String(), fault.OutOfRange, "must lie between min and max")
		}
	}
}

// checkLaunch checks a measurement's launch and checksum as values: only a
// supported GPU metric has them, a memory metric's launch names its buffer
// size (a whole number of 16-byte vectors), an arithmetic one's does not,
// and a checksum is 16 hexadecimal digits. Whether they match the run is
// verify's.
func checkLaunch(v *fault.Validation, mp validate.Path, m protocol.BenchMeasurement) {
	if m.Launch == nil && m.Checksum == nil || !m.Supported && (m.Median != nil || m.Min != nil || m.Max != nil) {
		// Nothing to check, or an unsupported metric with figures, which
		// checkMeasurements refuses for its figures.
		return
	}
	if !m.Supported || !slices.Contains(protocol.GPUMetrics, m.Metric) {
		v.Add(mp.Field("launch").String(), fault.InvalidValue, "only a measured GPU metric has a launch and a checksum")
		return
	}
	if m.Checksum != nil && !checksumPattern(*m.Checksum) {
		v.Add(mp.Field("checksum").String(), fault.InvalidValue, "a checksum is 16 hexadecimal digits")
	}
	l := m.Launch
	if l == nil {
		return
	}
	lp := mp.Field("launch")
	smRule.Check(v, lp.Field("smCount"), l.SmCount)
	gridRule.Check(v, lp.Field("grid"), l.Grid)
	scaleRule.Check(v, lp.Field("scale"), l.Scale)
	memory := slices.Contains([]protocol.BenchMetric{protocol.MetricMemoryRead, protocol.MetricMemoryWrite, protocol.MetricMemoryCopy}, m.Metric)
	switch {
	case memory && l.BufferBytes == nil:
		v.Add(lp.Field("bufferBytes").String(), fault.Required, "a memory metric's launch names its buffers' size")
	case !memory && l.BufferBytes != nil:
		v.Add(lp.Field("bufferBytes").String(), fault.InvalidValue, "only a memory metric has buffers")
	case memory:
		if bufferRule.Check(v, lp.Field("bufferBytes"), *l.BufferBytes) && math.Mod(*l.BufferBytes, 16) != 0 {
			v.Add(lp.Field("bufferBytes").String(), fault.InvalidValue, "a buffer is a whole number of 16-byte vectors")
		}
	}
}

// checksumPattern says whether s is 16 lowercase hexadecimal digits.
func checksumPattern(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

func checkEvidence(v *fault.Validation, p validate.Path, ev *protocol.GpuBenchEvidence) {
	samplesRule.Check(v, p.Field("samples"), ev.Samples)
	shareRule.Check(v, p.Field("throttledShare"), ev.ThrottledShare)
	tempRule.CheckOptional(v, p.Field("maxTemperatureC"), ev.MaxTemperatureC)
	clockRule.CheckOptional(v, p.Field("meanSmClockMHz"), ev.MeanSMClockMHz)
	clockRule.CheckOptional(v, p.Field("maxSmClockMHz"), ev.MaxSMClockMHz)
	powerRule.CheckOptional(v, p.Field("meanPowerDrawW"), ev.MeanPowerDrawW)
	powerRule.CheckOptional(v, p.Field("powerLimitW"), ev.PowerLimitW)
	genRule.CheckOptional(v, p.Field("pcieGeneration"), ev.PcieGeneration)
	genRule.CheckOptional(v, p.Field("pcieMaxGeneration"), ev.PcieMaxGeneration)
	widthRule.CheckOptional(v, p.Field("pcieWidth"), ev.PcieWidth)
	widthRule.CheckOptional(v, p.Field("pcieMaxWidth"), ev.PcieMaxWidth)
	eccRule.CheckOptional(v, p.Field("eccCorrectedDelta"), ev.EccCorrectedDelta)
	eccRule.CheckOptional(v, p.Field("eccUncorrectedDelta"), ev.EccUncorrectedDelta)
	if reasonsRule.Check(v, p.Field("throttleReasons"), len(ev.ThrottleReasons)) {
		for i, r := range ev.ThrottleReasons {
			reasonRule.Check(v, p.Field("throttleReasons").Index(i), r)
		}
	}
}

// listingChange is one GPU whose listing a run changed.
type listingChange struct {
	gpu    gpuRow
	to     models.GpuListing
	result *models.GpuBenchmark
}

// store writes the run, every GPU's scored result and listing, and the
// notices of listing changes, in one transaction; then announces it.
func (s *Service) store(ctx context.Context, run *models.BenchmarkRun, in protocol.BenchmarkResultInput, byUUID map[string]gpuRow, now time.Time) error {
	t := *s.cfg.Thresholds
	started, finished := in.StartedAt.UTC(), in.FinishedAt.UTC()
	run.State, run.StartedAt, run.FinishedAt, run.Simulated = models.BenchmarkRunCompleted, &started, &finished, in.Simulated
	run.Network, run.Storage = t.evaluateSection(in.Network), t.evaluateSection(in.Storage)
	var changes []listingChange
	postponed := false
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model(run).Column("state", "started_at", "finished_at", "simulated", "network", "storage").
			WherePK().Where("state <> ? AND refused_at IS NULL", models.BenchmarkRunCompleted).Exec(ctx)
		if err != nil {
			return fmt.Errorf("bench: unable to store run: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var v fault.Validation
			if s.refusedMeanwhile(ctx, tx, run.ID) {
				v.Add("input.runId", fault.InvalidState, "this run's result was refused meanwhile")
				return v.Err()
			}
			v.Add("input.runId", fault.Duplicate, "this run's result is already stored")
			return v.Err()
		}
		for _, g := range in.Gpus {
			row := byUUID[g.UUID]
			if g.Outcome == protocol.BenchPostponed {
				postponed = true
			}
			change, err := s.storeGPU(ctx, tx, run, row, g, now)
			if err != nil {
				return err
			}
			if change != nil {
				changes = append(changes, *change)
			}
		}
		if postponed {
			// A periodic run due before the retry stands; one already
			// overdue does not, or the next tick would ask the GPU again
			// while the customer's job still runs.
			retryAt := now.Add(s.cfg.RetryAfter)
			if _, err := tx.NewUpdate().Model((*models.MachineBenchSchedule)(nil)).
				Set("next_run_at = CASE WHEN next_run_at > ? AND next_run_at < ? THEN next_run_at ELSE ? END", now, retryAt, retryAt).
				Set("retry = ?", true).Where("machine_id = ?", run.MachineID).Exec(ctx); err != nil {
				return fmt.Errorf("bench: unable to schedule the retry: %w", err)
			}
		}
		if len(changes) > 0 {
			if err := s.tell(ctx, tx, run, changes); err != nil {
				return err
			}
		}
		s.announce(ctx, run.ProviderID, run.MachineID)
		return nil
	})
	if err != nil {
		return err
	}
	s.deps.Logger.InfoContext(ctx, "bench: result stored", "run_id", run.RunID, "machine_id", run.MachineID, "gpus", len(in.Gpus), "listing_changes", len(changes))
	if len(s.scored) > 0 {
		var results []*models.GpuBenchmark
		if err := s.deps.DB.NewSelect().Model(&results).Where("run_id = ?", run.ID).Order("gpu_id").Scan(ctx); err != nil {
			s.deps.Logger.WarnContext(ctx, "bench: unable to load the run's results for its followers", "run_id", run.RunID, "err", err)
			return nil
		}
		for _, fn := range s.scored {
			fn(ctx, results)
		}
	}
	return nil
}

// refusedMeanwhile says whether run id was refused by a concurrent
// submission.
func (s *Service) refusedMeanwhile(ctx context.Context, tx bun.Tx, id int64) bool {
	n, err := tx.NewSelect().Model((*models.BenchmarkRun)(nil)).Where("id = ? AND refused_at IS NOT NULL", id).Count(ctx)
	return err == nil && n > 0
}

// storeGPU scores one GPU's part and records it; it returns the listing
// change it made, if any. A postponed part is recorded and changes
// nothing.
func (s *Service) storeGPU(ctx context.Context, tx bun.Tx, run *models.BenchmarkRun, row gpuRow, g protocol.GpuBenchResult, now time.Time) (*listingChange, error) {
	t := *s.cfg.Thresholds
	gb := &models.GpuBenchmark{RunRowID: run.ID, GpuID: row.ID, MachineID: run.MachineID, Reason: run.Reason, At: *run.FinishedAt,
		Simulated: run.Simulated, Outcome: g.Outcome, Error: g.Error, Evidence: g.Evidence,
		Figures: []models.BenchmarkFigure{}, Shortfalls: []models.BenchmarkFigure{}, Guidance: []models.BenchmarkGuidance{}}
	if g.Outcome != protocol.BenchPostponed {
		e := t.evaluateGPU(ModelFor(row.ModelKey, row.Name), g, run.Network, run.Storage)
		gb.Figures, gb.Score, gb.Passed, gb.Shortfalls, gb.Guidance = e.Figures, e.Score, e.Passed, e.Shortfalls, e.Guidance
		if gb.Score != nil {
			c, err := s.consistency(ctx, tx, row.ID, *gb.Score)
			if err != nil {
				return nil, err
			}
			gb.Consistency = c
		}
	}
	if _, err := tx.NewInsert().Model(gb).Returning("id").Exec(ctx); err != nil {
		return nil, fmt.Errorf("bench: unable to store GPU result: %w", err)
	}
	if g.Outcome == protocol.BenchPostponed {
		return nil, nil
	}
	to := models.GpuListingDelisted
	if gb.Passed {
		to = models.GpuListingListed
	}
	st := new(models.GpuBenchStatus)
	err := tx.NewSelect().Model(st).Where("gpu_id = ?", row.ID).Scan(ctx)
	exists := err == nil
	if err != nil && !store.IsNoRows(err) {
		return nil, fmt.Errorf("bench: unable to load GPU listing: %w", err)
	}
	from := st.Listing
	if !exists {
		from = models.GpuListingPending
	}
	st.GpuID, st.MachineID, st.ProviderID, st.Score, st.LatestID = row.ID, run.MachineID, run.ProviderID, gb.Score, &gb.ID
	st.Listing, st.Shortfalls, st.Guidance = to, gb.Shortfalls, gb.Guidance
	st.Tflops = nil
	if f := models.HeadlineFigure(gb.Figures); f != nil {
		st.Tflops = f.Measured
	}
	if from != to || !exists {
		st.ListingChangedAt = now
	}
	if exists {
		_, err = tx.NewUpdate().Model(st).WherePK().Exec(ctx)
	} else {
		_, err = tx.NewInsert().Model(st).Exec(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("bench: unable to store GPU listing: %w", err)
	}
	// The first listing is no news; a delisting always is, and so is a
	// relisting.
	if from == to || (from == models.GpuListingPending && to == models.GpuListingListed) {
		return nil, nil
	}
	return &listingChange{gpu: row, to: to, result: gb}, nil
}

// baselineRuns is how many of a GPU's earlier scores its baseline is the
// median of.
const baselineRuns = 10

// consistency is score over the median of the GPU's earlier scores (its
// own baseline), or nil for its first scored run.
func (s *Service) consistency(ctx context.Context, tx bun.Tx, gpuID int64, score int) (*float64, error) {
	var earlier []int
	if err := tx.NewSelect().Model((*models.GpuBenchmark)(nil)).Column("score").
		Where("gpu_id = ? AND score IS NOT NULL", gpuID).OrderExpr("at DESC, id DESC").Limit(baselineRuns).Scan(ctx, &earlier); err != nil {
		return nil, fmt.Errorf("bench: unable to load the GPU's baseline: %w", err)
	}
	if len(earlier) == 0 {
		return nil, nil
	}
	sort.Ints(earlier)
	mid := len(earlier) / 2
	base := float64(earlier[mid])
	if len(earlier)%2 == 0 {
		base = float64(earlier[mid-1]+earlier[mid]) / 2
	}
	if base <= 0 {
		return nil, nil
	}
	c := math.Round(float64(score)/base*1000) / 1000
	return &c, nil
}
