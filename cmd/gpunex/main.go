// Command gpunex runs the GPUnex platform: `gpunex serve`, `gpunex migrate`
// and `gpunex user create`. This file holds flags, configuration and wiring
// only; the assembly lives in internal/platform, the demo world (its
// accounts and in-process agents) in internal/demo.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCommand().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "gpunex:", err)
		os.Exit(1)
	}
}
