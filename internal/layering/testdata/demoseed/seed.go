// Package demoseed is a domain package gone wrong, for the demo name
// checker's own test: it names the demo three times.
package demoseed

// SeedDemo would lay down the demo world from inside a service.
func SeedDemo() {}

// demoWallet is a demo-only helper.
func demoWallet() string { return "" }

// Past is fine; its field is not.
type Past struct {
	DemoHistory bool
}

// label is what a seed writes into rows; the message mentions the demo in
// prose, which is allowed, as is the reserved .demo domain.
const label, message, domain = "demo payout ", "simulated GPUs are for a demo server", ".demo"
