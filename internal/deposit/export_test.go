package deposit

import "context"

// SetAfterSee makes Run call f between See and Settle; an error from f
// ends the run there, as a replica killed after seeing.
func (s *Service) SetAfterSee(f func(context.Context) error) { s.afterSee = f }
