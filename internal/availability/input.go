package availability

import "github.com/gpunex/gpunex/models"

// MaxWindows is the most weekly windows an availability has, on the
// application form and in a provider's schedule alike.
const MaxWindows = 50

// Input is an availability as a provider enters it, on the application
// form (onboarding) or as its schedule (pricing): gqlgen binds the
// schema's AvailabilityInput to it. Check holds its rules; TimeZone is
// as entered (Zone trims it).
type Input struct {
	Kind     models.AvailabilityKind
	TimeZone *string
	Windows  []models.AvailabilityWindow
}
