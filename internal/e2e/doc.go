// Package e2e holds end-to-end tests that run the real binaries: `gpunex
// serve` and `gpunex-agent --simulate`, built from this tree, talking over
// loopback exactly as on a provider's host.
package e2e
