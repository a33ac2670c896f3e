package demo

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/gpunex/gpunex/agent/job/watch"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/models"
)

// Pace is how the demo customers rent and how the demo agents report the
// jobs. Zero fields take the defaults.
type Pace struct {
	// Every is the mean pause between two turns of the demo customers,
	// jittered by half either way (default 60s: a turn every 30–90 s).
	// Each turn may stop one running rental early (StopChance) and starts
	// one, unless MaxActive are running.
	Every time.Duration
	// Step is the pause between two lines a rental's job prints; a job
	// prints MinSteps to MaxSteps lines (defaults 2s, 30 and 120: jobs of
	// 1–4 minutes).
	Step               time.Duration
	MinSteps, MaxSteps int
	// StopChance is the chance that a turn stops a running rental early
	// (default 0.3); MaxActive bounds the demo customers' active rentals
	// (default 4).
	StopChance float64
	MaxActive  int
	// LogEvery is how often the demo agents report a running job's newer
	// output (default watch.DefaultLogEvery).
	LogEvery time.Duration
}

func (p Pace) withDefaults() Pace {
	if p.Every <= 0 {
		p.Every = time.Minute
	}
	if p.Step <= 0 {
		p.Step = 2 * time.Second
	}
	if p.MinSteps <= 0 {
		p.MinSteps = 30
	}
	if p.MaxSteps < p.MinSteps {
		p.MaxSteps = max(120, p.MinSteps)
	}
	if p.StopChance <= 0 {
		p.StopChance = 0.3
	}
	if p.MaxActive <= 0 {
		p.MaxActive = 4
	}
	if p.LogEvery <= 0 {
		p.LogEvery = watch.DefaultLogEvery
	}
	return p
}

// pause is one jittered pause: Every/2 to 3·Every/2.
func (p Pace) pause() time.Duration {
	return p.Every/2 + rand.N(p.Every+1)
}

// demoJob is a kind of job the demo customers run; script prints n lines,
// one every sleep seconds.
type demoJob struct {
	image  string
	script func(n int, sleep string) string
}

var demoJobs = []demoJob{
	{image: "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime", script: func(n int, sleep string) string {
		return fmt.Sprintf(`n=%d; echo "fine-tuning llama-3.1-8b (LoRA r=16) for $n steps"; for i in $(seq 1 $n); do l=$((2400 * 20 / (20 + i))); printf 'step %%d/%%d  loss %%d.%%03d\n' "$i" "$n" $((l / 1000)) $((l %% 1000)); sleep %s; done; echo "saved checkpoint to /workspace/ckpt-$n"`, n, sleep)
	}},
	{image: "vllm/vllm-openai:v0.6.4", script: func(n int, sleep string) string {
		return fmt.Sprintf(`n=%d; echo "serving mistral-7b-instruct, $n batches"; for i in $(seq 1 $n); do printf 'batch %%d/%%d  %%d tokens/s\n' "$i" "$n" $((2100 + (i * 37) %% 400)); sleep %s; done; echo "benchmark done"`, n, sleep)
	}},
	{image: "nvcr.io/nvidia/pytorch:24.10-py3", script: func(n int, sleep string) string {
		return fmt.Sprintf(`n=%d; echo "rendering $n frames"; for i in $(seq 1 $n); do echo "frame $i/$n rendered"; sleep %s; done; echo "all frames written"`, n, sleep)
	}},
}

// DemoJobEnv marks the rentals the demo customers start (an environment
// variable name the rental keeps), so they stop only their own.
const DemoJobEnv = "GPUNEX_DEMO_JOB"

// runCustomers is the demo customers (the accounts that Rents): every
// pause, now and then one stops a running rental early, then one rents
// GPUs of a demo provider's listing (those in providers) for a short job,
// so the marketplace and the providers' rentals move. It returns when ctx
// ends; their rentals end with the demo agents' jobs.
func (w World) runCustomers(ctx context.Context, providers map[int64]bool) {
	logger := w.logger().With("component", "demo-customers")
	pace := w.Rentals.withDefaults()
	var customers []*models.User
	for _, a := range Accounts {
		if !a.Rents {
			continue
		}
		u, err := w.Auth.UserByEmail(ctx, a.Email)
		if err != nil {
			logger.Warn("demo: customers", "customer", a.Email, "err", err)
			continue
		}
		customers = append(customers, u)
	}
	if len(customers) == 0 {
		return
	}
	for {
		t := time.NewTimer(pace.pause())
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if err := w.customersTurn(ctx, logger, pace, customers, providers); err != nil && ctx.Err() == nil {
			logger.Warn("demo: customers", "err", err)
		}
	}
}

// active is a customer's rental that has not ended.
type active struct {
	customer *models.User
	rental   *models.Rental
}

// customersTurn is one turn of the demo customers.
func (w World) customersTurn(ctx context.Context, logger *slog.Logger, pace Pace, customers []*models.User, providers map[int64]bool) error {
	var rentals []active
	for _, c := range customers {
		page, err := w.Market.Rentals(ctx, c.ID, market.MaxPageSize, "")
		if err != nil {
			return err
		}
		for _, r := range page.Rentals {
			// Only the rentals the demo started: a person (or a test)
			// renting as a demo customer keeps theirs.
			if !r.State.Ended() && slices.Contains(r.EnvNames, DemoJobEnv) {
				rentals = append(rentals, active{c, r})
			}
		}
	}
	var running []active
	for _, a := range rentals {
		if a.rental.State == models.RentalRunning {
			running = append(running, a)
		}
	}
	if len(running) > 0 && rand.Float64() < pace.StopChance {
		a := running[rand.N(len(running))]
		if _, err := w.Market.Stop(ctx, a.customer.ID, a.rental.ID); err != nil {
			return fmt.Errorf("%s stopping rental %d: %w", a.customer.Email, a.rental.ID, err)
		}
		logger.Info("demo: a customer stops a rental early", "customer", a.customer.Email, "rental_id", a.rental.ID)
	}
	if len(rentals) >= pace.MaxActive {
		return nil
	}
	page, err := w.Market.Marketplace(ctx, market.Filter{}, market.SortRank, market.MaxPageSize, "")
	if err != nil {
		return err
	}
	var listings []*market.Listing
	for _, l := range page.Listings {
		if providers[l.ProviderID] {
			listings = append(listings, l)
		}
	}
	if len(listings) == 0 {
		logger.Debug("demo: nothing of the demo providers is listed now")
		return nil
	}
	l := listings[rand.N(len(listings))]
	customer := customers[rand.N(len(customers))]
	in := pace.rental(l)
	if err := w.topUp(ctx, customer); err != nil {
		return fmt.Errorf("%s topping up: %w", customer.Email, err)
	}
	r, err := w.Market.Start(ctx, customer.ID, in)
	if fault.CodeOf(err) == fault.Invalid {
		// Taken meanwhile (by a person trying the demo, say): next turn.
		logger.Debug("demo: a customer could not rent", "customer", customer.Email, "err", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s renting: %w", customer.Email, err)
	}
	logger.Info("demo: a customer rents", "customer", customer.Email, "rental_id", r.ID, "model", r.ModelKey,
		"gpus", r.GpuCount, "price_per_hour", r.PricePerHour.String())
	return nil
}

// rental is the start of a short job on listing l: one GPU, sometimes two,
// a job printing MinSteps to MaxSteps lines, an end by which it is over
// with room to spare.
func (p Pace) rental(l *market.Listing) market.StartInput {
	n := p.MinSteps + rand.N(p.MaxSteps-p.MinSteps+1)
	kind := demoJobs[rand.N(len(demoJobs))]
	count := 1
	if l.GpuCount > 1 && rand.N(4) == 0 {
		count = 2
	}
	endBy := time.Now().Add(time.Duration(n)*p.Step + market.MinRentalTime + time.Minute).UTC()
	sleep := strconv.FormatFloat(p.Step.Seconds(), 'f', -1, 64)
	return market.StartInput{
		ListingID: &l.ID, GpuCount: count, Image: kind.image,
		Command: []string{"sh", "-c", kind.script(n, sleep)},
		Env:     []market.EnvVar{{Name: "WANDB_MODE", Value: "offline"}, {Name: DemoJobEnv, Value: "1"}},
		EndBy:   &endBy,
	}
}
