// Package resolvers implements the GraphQL schema (follow-schema layout: one
// x.resolvers.go per schema/x.graphqls). Resolvers are thin: they check who
// is asking, call one domain service, and map the result; business rules
// live in internal/<concern>.
package resolvers

import (
	"log/slog"

	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bench"
	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/deposit"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/internal/pricing"
	"github.com/gpunex/gpunex/internal/provider"
	"github.com/gpunex/gpunex/internal/reliability"
)

// Resolver is the dependency-injection root; gqlgen never regenerates it.
type Resolver struct {
	Auth       *auth.Service
	Notify     *notification.Service
	Onboarding *onboarding.Service
	Providers  *provider.Service
	Fleet      *fleet.Service
	Bench      *bench.Service
	Pricing    *pricing.Service
	Market     *market.Service
	Billing    *billing.Service
	Deposits   *deposit.Service
	Scoring    *reliability.Service
	Logger     *slog.Logger
}

// NewSchema returns the executable schema's configuration over r. It
// sets no complexity functions: every field costs gqlgen's default (one,
// plus its children), which the API's complexity limit bounds.
func NewSchema(r *Resolver) graph.Config {
	return graph.Config{Resolvers: r}
}
