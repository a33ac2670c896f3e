package api

import (
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// statsClock is gqlgen's clock for its operation statistics
// (graphql.Stats: when an operation was read, parsed and validated). Only
// gqlgen's tracing extensions read those times, and this server installs
// none; the metrics time requests with their own clock. Reading the real
// clock for them cost five calls of about 40 ns per operation, a few per
// cent of a small query; a zero time serves. Set once, before any server
// runs: graphql.Now is a package variable for this.
func statsClock() time.Time { return time.Time{} }

func init() { graphql.Now = statsClock }
