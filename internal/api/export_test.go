package api

// LockedLog collects a server's log lines from any goroutine, for the
// external tests.
type LockedLog = lockedLog

// PresentError exposes the error presenter to the external tests.
var PresentError = presentError
