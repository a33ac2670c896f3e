package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Progress is where providerID stands on its way from application to a
// first rental: every step of models.ProgressSteps in order, each with when
// it was first reached (nil while ahead), read in one statement from what
// the platform recorded (the application, the approval, the first agent
// token, the first machine registered, the first GPU benchmark and the
// first passed one, the first rental). Each is a first time: a GPU listed
// once and delisted since keeps its step done.
func (s *Service) Progress(ctx context.Context, providerID int64) ([]*models.ProgressMark, error) {
	var row struct {
		Applied   *time.Time `bun:"applied"`
		Approved  *time.Time `bun:"approved"`
		Token     *time.Time `bun:"token"`
		Machine   *time.Time `bun:"machine"`
		Benchmark *time.Time `bun:"benchmark"`
		Listed    *time.Time `bun:"listed"`
		Rental    *time.Time `bun:"rental"`
	}
	err := s.deps.DB.NewRaw(`SELECT
		(SELECT pa.submitted_at FROM provider_applications AS pa WHERE pa.id = p.application_id) AS applied,
		p.created_at AS approved,
		(SELECT MIN(t.created_at) FROM agent_tokens AS t WHERE t.provider_id = p.id) AS token,
		(SELECT MIN(m.registered_at) FROM machines AS m WHERE m.provider_id = p.id) AS machine,
		(SELECT MIN(gb.at) FROM gpu_benchmarks AS gb JOIN machines AS m ON m.id = gb.machine_id WHERE m.provider_id = p.id) AS benchmark,
		(SELECT MIN(gb.at) FROM gpu_benchmarks AS gb JOIN machines AS m ON m.id = gb.machine_id WHERE m.provider_id = p.id AND gb.passed) AS listed,
		(SELECT MIN(r.created_at) FROM rentals AS r WHERE r.provider_id = p.id) AS rental
		FROM providers AS p WHERE p.id = ?`, providerID).Scan(ctx, &row)
	if store.IsNoRows(err) {
		return nil, fmt.Errorf("provider: no provider %d", providerID)
	}
	if err != nil {
		return nil, fmt.Errorf("provider: unable to read the progress: %w", err)
	}
	at := []*time.Time{row.Applied, row.Approved, row.Token, row.Machine, row.Benchmark, row.Listed, row.Rental}
	marks := make([]*models.ProgressMark, len(models.ProgressSteps))
	for i, step := range models.ProgressSteps {
		marks[i] = &models.ProgressMark{Step: step, ReachedAt: at[i]}
	}
	return marks, nil
}
