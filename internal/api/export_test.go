package api

// PresentError exposes the error presenter to the external tests.
var PresentError = presentError
