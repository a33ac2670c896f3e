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

// pastReliability is each demo machine's last 30 days, so the demo
// providers have visibly different scores with reasons: Lisbon's rack
// lost power for three hours and dropped a customer's job (and its hot
// H100's benchmarks, recorded by the benchmark history, show throttling);
// São Paulo's home link went down three times; Mumbai's lab interrupted
// one job; Frankfurt's datacenter and the small hosts ran clean.
var pastReliability = map[string]struct {
	outages     []outage
	interrupted []float64 // days ago
	completed   int
}{
	"demo-lisbon-rack-01": {outages: []outage{{5, 3}}, interrupted: []float64{5}, completed: 14},
	"demo-lisbon-edge-01": {completed: 9},
	"demo-fra-dc-01":      {completed: 22},
	"demo-fra-dc-02":      {completed: 18},
	"demo-sp-home-01":     {outages: []outage{{12, 1}, {8, 1.5}, {3, 1}}, completed: 6},
	"demo-mumbai-lab-01":  {interrupted: []float64{10}, completed: 8},
}

// seedReliabilityHistory replays a demo machine's past month (online
// from 30 days ago, its outages, its jobs) once, through the reliability
// service's own paths.
func (w World) seedReliabilityHistory(ctx context.Context, machineID int64, m demoMachine) error {
	if w.Reliability == nil {
		return nil
	}
	now := time.Now().UTC()
	ago := func(days float64) time.Time { return now.Add(-time.Duration(days * 24 * float64(time.Hour))) }
	past := pastReliability[m.ID]
	steps := []reliability.PastStep{{At: ago(30), Status: models.MachineOnline}}
	for _, o := range past.outages {
		steps = append(steps, reliability.PastStep{At: ago(o.daysAgo), Status: models.MachineOffline},
			reliability.PastStep{At: ago(o.daysAgo).Add(time.Duration(o.hours * float64(time.Hour))), Status: models.MachineOnline})
	}
	provider := protocol.CauseProvider
	for _, d := range past.interrupted {
		steps = append(steps, reliability.PastStep{At: ago(d).Add(time.Minute), Ended: &models.Rental{State: models.RentalInterrupted, Cause: &provider}})
	}
	for i := range past.completed {
		steps = append(steps, reliability.PastStep{At: ago(29 - float64(i)*28/float64(max(1, past.completed))), Ended: &models.Rental{State: models.RentalCompleted}})
	}
	sortSteps(steps)
	_, err := w.Reliability.RecordPast(ctx, machineID, steps)
	return err
}

func sortSteps(steps []reliability.PastStep) {
	for i := 1; i < len(steps); i++ {
		for j := i; j > 0 && steps[j].At.Before(steps[j-1].At); j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
}
