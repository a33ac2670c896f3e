package market

import (
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpunex/gpunex/internal/fault"
)

// soldOut shares a start's finding that nothing can take it with the
// starts of the same shape (what candidates reads: listing, model, filter
// and GPU count) that were already waiting when that read began: they
// get its answer without asking the database again. A start's answer may
// be what the database said at any instant between its request and its
// reply, and that read's instant is one for each of them; a start that
// arrives after the read began reads for itself, so GPUs freed meanwhile
// are never refused. When 200 starts race for 50 GPUs, the 150 that come
// after the last GPU went cost a handful of reads instead of three
// statements each (issue 27, point 4).
type soldOut struct {
	// seq orders arrivals and reads on this replica.
	seq     atomic.Uint64
	mu      sync.Mutex
	byShape map[string]emptyRead
}

// emptyRead is the last read of a shape that found no candidate: when it
// began (seq) and the problems of the refusal it was answered with.
type emptyRead struct {
	at       uint64
	problems []fault.Problem
}

// soldOutShapes bounds the shapes remembered: past it they are all
// forgotten (a forgotten shape is read again, nothing else).
const soldOutShapes = 1024

// tick is a point in the replica's order of starts and reads: a start
// takes one when it arrives, a read when it begins.
func (s *soldOut) tick() uint64 { return s.seq.Add(1) }

// shapeOf is the key of what candidates reads for in.
func shapeOf(in *StartInput) string {
	b, _ := json.Marshal(struct {
		ListingID *string
		Model     *string
		Filter    *Filter
		GpuCount  int
	}{in.ListingID, in.Model, in.Filter, in.GpuCount})
	return string(b)
}

// answer is the refusal of the latest read of shape that found nothing
// and began after arrived, or nil.
func (s *soldOut) answer(shape string, arrived uint64) error {
	s.mu.Lock()
	r, ok := s.byShape[shape]
	s.mu.Unlock()
	if !ok || r.at < arrived {
		return nil
	}
	return &fault.Validation{Problems: slices.Clone(r.problems)}
}

// record keeps err, the refusal of a read of shape begun at at that found
// no candidate, unless a later one is kept.
func (s *soldOut) record(shape string, at uint64, err error) {
	var v *fault.Validation
	if !errors.As(err, &v) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.byShape[shape]; ok && r.at >= at {
		return
	}
	if s.byShape == nil || len(s.byShape) >= soldOutShapes {
		s.byShape = map[string]emptyRead{}
	}
	s.byShape[shape] = emptyRead{at: at, problems: slices.Clone(v.Problems)}
}
