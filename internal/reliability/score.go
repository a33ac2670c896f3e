package reliability

import (
	"math"
	"time"

	"github.com/gpunex/gpunex/models"
)

// The score's constants (see doc.go).
const (
	// HalfLife is how long it takes an event's weight to halve.
	HalfLife = 7 * 24 * time.Hour
	// Window is how far back events are listed and the trend goes: past
	// it an event weighs under 6 % of what it did.
	Window = 30 * 24 * time.Hour

	// The components' weights in the score.
	WeightUptime      = 0.5
	WeightCompletion  = 0.3
	WeightConsistency = 0.2

	// The priors: what a machine is assumed to be before it shows
	// otherwise, and how much evidence that assumption is worth.
	PriorUptime            = 0.95
	PriorUptimeSeconds     = 24 * 3600.0
	PriorCompletion        = 0.9
	PriorCompletionJobs    = 3.0
	PriorConsistency       = 0.95
	PriorConsistencyWeight = 3.0

	// ThrottlePenalty is taken off a benchmark's consistency when NVML
	// saw the GPU throttle for heat or power during it.
	ThrottlePenalty = 0.2
	// DegradedBelow is the consistency under which a benchmark is an
	// event.
	DegradedBelow = 0.95
)

// tau is the decay's time constant: weight = e^(−age/τ).
var tau = float64(HalfLife) / math.Ln2

// epoch is the fixed instant event keys are measured from.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// decay is e^(−d/τ).
func decay(d time.Duration) float64 {
	if d <= 0 {
		return 1
	}
	return math.Exp(-float64(d) / tau)
}

// keyOf is an event's ordering key: its magnitude grown by e^(t/τ) from
// epoch. Every key decays by the same factor as time passes, so ordering
// by key is ordering by weight now. e^(t/τ) fits a float64 for about 19
// years from the epoch (709 τ); the epoch moves by a migration before.
func keyOf(magnitude float64, at time.Time) float64 {
	return magnitude * math.Exp(float64(at.Sub(epoch))/tau)
}

// weightNow is what an event's key weighs at now.
func weightNow(key float64, now time.Time) float64 {
	return key * math.Exp(-float64(now.Sub(epoch))/tau)
}

// acc is one component's decayed numerator and denominator as of at.
type acc struct {
	num, den float64
	at       time.Time
}

// to decays a to t (never backwards).
func (a acc) to(t time.Time) acc {
	if !t.After(a.at) {
		return a
	}
	f := decay(t.Sub(a.at))
	return acc{a.num * f, a.den * f, t}
}

// add adds num and den observed at t (decayed from t to a's time, or a
// moved to t if t is later).
func (a acc) add(num, den float64, t time.Time) acc {
	if t.After(a.at) {
		a = a.to(t)
		return acc{a.num + num, a.den + den, a.at}
	}
	f := decay(a.at.Sub(t))
	return acc{a.num + num*f, a.den + den*f, a.at}
}

// integral is ∫ e^(−(at−t)/τ) dt over [from, to], in seconds: time's
// weight at at, exact, so splitting an interval changes nothing.
func integral(from, to, at time.Time) float64 {
	if !to.After(from) {
		return 0
	}
	t := tau / float64(time.Second)
	return t * (math.Exp(-float64(at.Sub(to))/tau) - math.Exp(-float64(at.Sub(from))/tau))
}

func (a acc) plus(b acc) acc {
	b = b.to(a.at)
	return acc{a.num + b.num, a.den + b.den, a.at}
}

// ratio is (num + prior × weight) / (den + weight).
func (a acc) ratio(prior, weight float64) float64 {
	return (a.num + prior*weight) / (a.den + weight)
}

// Components are the three parts of a score, each 0–1.
type Components struct {
	Uptime, Completion, Consistency float64
}

// Score is 100 × (0.5 uptime + 0.3 completion + 0.2 consistency), rounded.
func (c Components) Score() int {
	return int(math.Round(100 * (WeightUptime*c.Uptime + WeightCompletion*c.Completion + WeightConsistency*c.Consistency)))
}

// state is accumulators of a machine or a provider, all at one instant.
type state struct {
	up, job, cons acc
}

func (s state) components() Components {
	return Components{
		Uptime:      s.up.ratio(PriorUptime, PriorUptimeSeconds),
		Completion:  s.job.ratio(PriorCompletion, PriorCompletionJobs),
		Consistency: s.cons.ratio(PriorConsistency, PriorConsistencyWeight),
	}
}

// observed reports whether any evidence went into s: scheduled time, a
// job or a benchmark. Without it the components are the priors alone.
func (s state) observed() bool { return s.up.den > 0 || s.job.den > 0 || s.cons.den > 0 }

func stateOf(m *models.ReliabilityMachine) state {
	return state{acc{m.UpNum, m.UpDen, m.UpAt}, acc{m.JobNum, m.JobDen, m.JobAt}, acc{m.ConsNum, m.ConsDen, m.ConsAt}}
}

func (s state) to(t time.Time) state { return state{s.up.to(t), s.job.to(t), s.cons.to(t)} }

func (s state) plus(o state) state {
	return state{s.up.plus(o.up), s.job.plus(o.job), s.cons.plus(o.cons)}
}

// cost is how many points of the score removing an event of weight w (at
// now) from s would give back: the event's cost.
func (s state) cost(kind models.ReliabilityEventKind, w float64) float64 {
	before := s.components().Score100()
	switch kind {
	case models.EventOutage:
		s.up.den -= w
	case models.EventJobInterrupted:
		s.job.den -= w
	case models.EventBenchmarkDegraded:
		// w is the shortfall's weight: the result added (1 − shortfall)
		// to the numerator and 1 to the denominator; without the
		// shortfall it would have been a full result.
		s.cons.num += w
	}
	return s.components().Score100() - before
}

// Score100 is the score before rounding.
func (c Components) Score100() float64 {
	return 100 * (WeightUptime*c.Uptime + WeightCompletion*c.Completion + WeightConsistency*c.Consistency)
}
