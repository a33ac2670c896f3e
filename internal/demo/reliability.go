package demo

import (
	"context"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/reliability"
	"github.com/gpunex/gpunex/models"
)

// outage is hours offline starting daysAgo days ago.
type outage struct {
	daysAgo float64
	hours   float64
}

// pastMachine is a demo machine's last 30 days.
type pastMachine struct {
	outages     []outage
	interrupted []float64 // days ago
	completed   int
}

// pastReliability is each demo machine's last 30 days, so the demo
// providers have visibly different scores with reasons: Lisbon's rack
// lost power for three hours and dropped a customer's job (and its hot
// H100's benchmarks, recorded by the benchmark history, show throttling);
// São Paulo's home link went down three times; Mumbai's lab interrupted
// one job; Frankfurt's datacenter and the small hosts ran clean.
var pastReliability = map[string]pastMachine{
	"demo-lisbon-rack-01": {outages: []outage{{5, 3}}, interrupted: []float64{5}, completed: 14},
	"demo-lisbon-edge-01": {completed: 9},
	"demo-fra-dc-01":      {completed: 22},
	"demo-fra-dc-02":      {completed: 18},
	"demo-sp-home-01":     {outages: []outage{{12, 1}, {8, 1.5}, {3, 1}}, completed: 6},
	"demo-mumbai-lab-01":  {interrupted: []float64{10}, completed: 8},
}

// seedReliabilityHistory replays the past month of a demo provider's
// machines (each online from 30 days ago, its outages, its jobs) once,
// through the reliability service's own paths, with a snapshot of the
// provider's score at each day's end: the Performance tab's trend shows
// the month, down on the days of its outages and interrupted jobs.
func (w World) seedReliabilityHistory(ctx context.Context, providerID int64, ms map[int64]demoMachine) error {
	if w.Reliability == nil || len(ms) == 0 {
		return nil
	}
	now := time.Now().UTC()
	pasts := map[int64][]reliability.PastStep{}
	for id, m := range ms {
		pasts[id] = pastSteps(now, pastReliability[m.ID])
	}
	_, err := w.Reliability.ImportPast(ctx, providerID, pasts)
	return err
}

// pastSteps are a machine's past as of now, oldest first.
func pastSteps(now time.Time, past pastMachine) []reliability.PastStep {
	ago := func(days float64) time.Time { return now.Add(-time.Duration(days * 24 * float64(time.Hour))) }
	// An outage and the job it dropped begin at 10:00 UTC of their day, so
	// they lie within that day whatever the time now: replayed at 23:30,
	// "eight days ago" straddled midnight and the trend dipped on neither
	// day.
	onDay := func(days float64) time.Time { return ago(days).Truncate(24 * time.Hour).Add(10 * time.Hour) }
	steps := []reliability.PastStep{{At: ago(30), Status: protocol.MachineOnline}}
	for _, o := range past.outages {
		steps = append(steps, reliability.PastStep{At: onDay(o.daysAgo), Status: protocol.MachineOffline},
			reliability.PastStep{At: onDay(o.daysAgo).Add(time.Duration(o.hours * float64(time.Hour))), Status: protocol.MachineOnline})
	}
	provider := protocol.CauseProvider
	for _, d := range past.interrupted {
		steps = append(steps, reliability.PastStep{At: onDay(d).Add(time.Minute), Ended: &models.Rental{State: models.RentalInterrupted, Cause: &provider}})
	}
	for i := range past.completed {
		// A two-hour job at a market rate: worth more than the least
		// that counts as a completed job.
		at := ago(29 - float64(i)*28/float64(max(1, past.completed)))
		began := at.Add(-2 * time.Hour)
		steps = append(steps, reliability.PastStep{At: at, Ended: &models.Rental{State: models.RentalCompleted, GpuCount: 1,
			PricePerHour: 2 * models.MicrosPerUSDC, StartedAt: &began}})
	}
	sortSteps(steps)
	return steps
}

func sortSteps(steps []reliability.PastStep) {
	for i := 1; i < len(steps); i++ {
		for j := i; j > 0 && steps[j].At.Before(steps[j-1].At); j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
}
