package auth

// SetHashHook makes s call f each time it holds a hashing slot, before
// the hash runs: tests hold a hash in progress or watch how many run.
func SetHashHook(s *Service, f func()) { s.hasher.inSlot = f }

// HashesRunning reports the hashes and verifications in progress.
func HashesRunning(s *Service) int64 { return s.hasher.running.Load() }

// HashBound reports how many hashes s runs at once.
func HashBound(s *Service) int { return cap(s.hasher.slots) }
