// Command gpunex-agent is the daemon that runs on a provider's host. Its
// flags follow the command-line contract of DESIGN.md; detection,
// registration and heartbeats arrive with the agent issue (#4), and until
// then the binary says so plainly instead of pretending to work.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gpunex/gpunex/agent"
)

func main() {
	fs := flag.NewFlagSet("gpunex-agent", flag.ExitOnError)
	server := fs.String("server", os.Getenv("GPUNEX_SERVER"), "GPUnex server URL (env GPUNEX_SERVER)")
	_ = fs.String("token", os.Getenv("GPUNEX_TOKEN"), "agent token (env GPUNEX_TOKEN)")
	_ = fs.String("data-dir", "/var/lib/gpunex-agent", "directory for the machine identity and buffered results")
	_ = fs.String("simulate", "", "simulate GPUs, e.g. 2xH100,1xL4")
	_ = fs.Parse(os.Args[1:])
	fmt.Fprintf(os.Stderr, "gpunex-agent %s: the agent runtime is not built yet (server %q); see issue #4\n", agent.Version, *server)
	os.Exit(2)
}
