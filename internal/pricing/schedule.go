package pricing

import (
	"time"

	"github.com/gpunex/gpunex/models"
)

// Schedule is a provider's availability schedule as the API shows it.
type Schedule struct {
	Availability models.Availability
	// OpenNow says whether the GPUs are offered now (inside the schedule,
	// outside provider-wide maintenance).
	OpenNow bool
	// NextChangeAt is when OpenNow next changes; nil when it never does.
	NextChangeAt *time.Time
	UpdatedAt    time.Time
}
