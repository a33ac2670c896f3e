// Package demo is the demo world of `gpunex serve --demo`: the accounts
// and provider applications the README lists, the demo providers' prices
// (Seed), their machines, run in-process as real agents that run the jobs
// of rentals, and demo customers who rent those GPUs now and then on
// their own (RunAgents).
//
// It is apart from the platform assembly because those machines are
// agents: they link the agent's client and GPU simulator, which the server
// proper never imports (internal/layering checks it). Only cmd/gpunex
// imports this package; it seeds the world after platform.New and hands
// RunAgents to the platform as background work that gets the bound URL.
package demo

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/bench"
	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/internal/pricing"
	"github.com/gpunex/gpunex/internal/provider"
	"github.com/gpunex/gpunex/internal/reliability"
	"github.com/gpunex/gpunex/models"
)

// Password is the password of every demo account (README lists them).
const Password = "gpunex-demo"

// Account is one account of the demo world and what happens to its
// provider application.
type Account struct {
	// Email and Name are the account's; Admin grants the admin role.
	Email string
	Name  string
	Admin bool
	// Application, when set, is submitted and then taken to Outcome (an
	// approval, a request for information or a rejection with Note).
	Application *onboarding.Input
	Outcome     models.ApplicationStatus
	Note        string
	// Tier is the tier an approval sets (the suggestion when nil).
	Tier *models.ProviderTier
	// Prices are an approved provider's hourly rates per GPU per hour, by
	// catalogue model key, set while it has none.
	Prices map[string]string
	// Rents makes the account one of the demo customers RunAgents rents
	// GPUs for.
	Rents bool
}

func str(s string) *string { return &s }

func demoApplication(name, email string, company *string, ups bool, months int, gpus ...onboarding.GPUInput) *onboarding.Input {
	return &onboarding.Input{FullName: name, Email: email, Company: company, UpsProtected: ups, CommitmentMonths: months, Gpus: gpus}
}

func alwaysGPU(model string, qty int, city, country string) onboarding.GPUInput {
	return onboarding.GPUInput{
		ModelKey: model, Quantity: qty, RAMGb: 512, UploadGbps: 10, DownloadGbps: 10,
		Availability: availability.Input{Kind: models.AvailabilityAlways},
		Location:     models.Location{City: str(city), Country: str(country)},
	}
}

// homeGPU is a GPU at home, online 24/7 on a home connection.
func homeGPU(model string, qty int, city, country string) onboarding.GPUInput {
	g := alwaysGPU(model, qty, city, country)
	g.RAMGb, g.UploadGbps, g.DownloadGbps = 64, 0.5, 1
	return g
}

func eveningsGPU(model string, qty int, tz, city, country string) onboarding.GPUInput {
	g := onboarding.GPUInput{
		ModelKey: model, Quantity: qty, RAMGb: 64, UploadGbps: 0.5, DownloadGbps: 1,
		Availability: availability.Input{Kind: models.AvailabilityWeekly, TimeZone: str(tz)},
		Location:     models.Location{City: str(city), Country: str(country)},
	}
	for _, d := range models.Weekdays[:5] {
		g.Availability.Windows = append(g.Availability.Windows, models.AvailabilityWindow{Day: d, Start: "19:00", End: "24:00"})
	}
	g.Availability.Windows = append(g.Availability.Windows,
		models.AvailabilityWindow{Day: models.Saturday, Start: "00:00", End: "24:00"},
		models.AvailabilityWindow{Day: models.Sunday, Start: "00:00", End: "24:00"})
	return g
}

func tier(t models.ProviderTier) *models.ProviderTier { return &t }

// at sets a GPU entry's datacenter region.
func at(g onboarding.GPUInput, region string) onboarding.GPUInput {
	g.Location.Region = &region
	return g
}

func otherGPU(g onboarding.GPUInput, name string) onboarding.GPUInput {
	g.OtherModel = &name
	return g
}

// Accounts are the accounts `gpunex serve --demo` makes sure exist: an
// admin, approved providers in several regions and both tiers with their
// prices, customers who rent their GPUs, and applicants whose
// applications wait in each state of review.
var Accounts = []Account{
	{Email: "admin@gpunex.demo", Name: "Ada Admin", Admin: true},
	{Email: "provider@gpunex.demo", Name: "Priya Provider", Outcome: models.ApplicationApproved,
		Application: demoApplication("Priya Provider", "provider@gpunex.demo", str("Lisbon GPU Works"), true, 12,
			alwaysGPU("H100_SXM_80GB", 8, "Lisbon", "Portugal"), alwaysGPU("L4_24GB", 4, "Lisbon", "Portugal")),
		Prices: map[string]string{"H100_SXM_80GB": "2.490000", "L4_24GB": "0.390000"}},
	{Email: "frankfurt@gpunex.demo", Name: "Felix Frankfurt", Outcome: models.ApplicationApproved, Tier: tier(models.TierEnterprise),
		Application: demoApplication("Felix Frankfurt", "frankfurt@gpunex.demo", str("Rhein-Main Datacenter AG"), true, 36,
			at(alwaysGPU("A100_SXM_80GB", 8, "Frankfurt", "Germany"), "eu-central"),
			at(alwaysGPU("H100_SXM_80GB", 4, "Frankfurt", "Germany"), "eu-central")),
		Prices: map[string]string{"A100_SXM_80GB": "1.690000", "H100_SXM_80GB": "2.890000"}},
	{Email: "saopaulo@gpunex.demo", Name: "Sofia São Paulo", Outcome: models.ApplicationApproved, Tier: tier(models.TierCommunity),
		Application: demoApplication("Sofia São Paulo", "saopaulo@gpunex.demo", nil, false, 6,
			homeGPU("RTX_4090_24GB", 2, "São Paulo", "Brazil")),
		Prices: map[string]string{"RTX_4090_24GB": "0.340000"}},
	{Email: "mumbai@gpunex.demo", Name: "Meera Mumbai", Outcome: models.ApplicationApproved, Tier: tier(models.TierCommunity),
		Application: demoApplication("Meera Mumbai", "mumbai@gpunex.demo", str("Andheri AI Lab"), true, 12,
			alwaysGPU("L40S_48GB", 2, "Mumbai", "India")),
		Prices: map[string]string{"L40S_48GB": "0.790000"}},
	// Small hosts that give the demo's H100 and L4 markets depth: Porto
	// next to Lisbon, Madrid in Europe, Ashburn across the Atlantic.
	{Email: "porto@gpunex.demo", Name: "Paulo Porto", Outcome: models.ApplicationApproved, Tier: tier(models.TierCommunity),
		Application: demoApplication("Paulo Porto", "porto@gpunex.demo", nil, true, 6,
			alwaysGPU("H100_SXM_80GB", 2, "Porto", "Portugal")),
		Prices: map[string]string{"H100_SXM_80GB": "2.290000"}},
	{Email: "madrid@gpunex.demo", Name: "Marta Madrid", Outcome: models.ApplicationApproved, Tier: tier(models.TierCommunity),
		Application: demoApplication("Marta Madrid", "madrid@gpunex.demo", nil, true, 6,
			homeGPU("L4_24GB", 2, "Madrid", "Spain")),
		Prices: map[string]string{"L4_24GB": "0.450000"}},
	{Email: "virginia@gpunex.demo", Name: "Victor Virginia", Outcome: models.ApplicationApproved, Tier: tier(models.TierCommunity),
		Application: demoApplication("Victor Virginia", "virginia@gpunex.demo", str("Potomac GPU Co"), true, 12,
			alwaysGPU("L4_24GB", 2, "Ashburn", "United States"), alwaysGPU("H100_SXM_80GB", 2, "Ashburn", "United States")),
		Prices: map[string]string{"L4_24GB": "0.350000", "H100_SXM_80GB": "2.190000"}},
	{Email: "customer@gpunex.demo", Name: "Carlos Customer", Rents: true},
	{Email: "research@gpunex.demo", Name: "Rosa Research", Rents: true},
	{Email: "applicant@gpunex.demo", Name: "Sam Submitted", Outcome: models.ApplicationSubmitted,
		Application: demoApplication("Sam Submitted", "applicant@gpunex.demo", nil, false, 6,
			eveningsGPU("RTX_4090_24GB", 2, "America/Sao_Paulo", "São Paulo", "Brazil"))},
	{Email: "info@gpunex.demo", Name: "Ines Info", Outcome: models.ApplicationInfoRequested,
		Note: "Which UPS protects the rack, and for how long does it hold the load?",
		Application: demoApplication("Ines Info", "info@gpunex.demo", str("Frankfurt Compute GmbH"), false, 24,
			alwaysGPU("A100_SXM_80GB", 16, "Frankfurt", "Germany"))},
	{Email: "rejected@gpunex.demo", Name: "Rex Rejected", Outcome: models.ApplicationRejected,
		Note: "Consumer GPUs without ECC on a 100 Mbps home link do not meet our minimum network requirements.",
		Application: demoApplication("Rex Rejected", "rejected@gpunex.demo", nil, false, 3,
			otherGPU(eveningsGPU(catalog.Other, 1, "Asia/Kolkata", "Pune", "India"), "GeForce GTX 1080 Ti"))},
}

// World is the demo world over a platform's services.
type World struct {
	Auth       *auth.Service
	Providers  *provider.Service
	Onboarding *onboarding.Service
	// Fleet and Bench register the demo machines ahead of their agents
	// and record their benchmark history.
	Fleet *fleet.Service
	Bench *bench.Service
	// Pricing sets the demo providers' prices; without it they have none,
	// and nothing of theirs is listed.
	Pricing *pricing.Service
	// Market is where the demo customers rent; without it they do not,
	// and the demo agents report jobs only over their API.
	Market *market.Service
	// Billing credits the demo customers' funds; without it they have
	// none (and cannot rent where the market asks for funds).
	Billing *billing.Service
	// Reliability replays the demo machines' past month (outages, jobs)
	// with a score snapshot a day (the Performance tab's trend);
	// without it their scores start at the prior.
	Reliability *reliability.Service
	// Rentals paces the demo customers (the zero value: the demo's pace).
	Rentals Pace
	// DataDir holds the in-process agents' state, under demo-agents/
	// (default "data", as the platform's).
	DataDir string
	// Logger defaults to discarding.
	Logger *slog.Logger
}

func (w World) logger() *slog.Logger {
	if w.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Logger
}

// Seed creates the demo world. It is idempotent: accounts that exist are
// left as they are, so restarting with --demo keeps your changes.
func (w World) Seed(ctx context.Context) error {
	var admin *auth.Viewer
	for _, a := range Accounts {
		u, err := w.Auth.UserByEmail(ctx, a.Email)
		if err == nil {
			if a.Admin {
				admin = &auth.Viewer{User: u, Roles: []models.Role{models.RoleCustomer, models.RoleAdmin}}
			}
			continue
		} else if fault.CodeOf(err) != fault.NotFound {
			return fmt.Errorf("demo: %w", err)
		}
		var roles []models.Role
		if a.Admin {
			roles = append(roles, models.RoleAdmin)
		}
		u, err = w.Auth.CreateUser(ctx, auth.SignUpInput{Email: a.Email, Name: a.Name, Password: Password}, roles...)
		if err != nil {
			return fmt.Errorf("demo: unable to create %s: %w", a.Email, err)
		}
		if a.Admin {
			admin = &auth.Viewer{User: u, Roles: u.Roles}
		}
		if a.Application == nil || admin == nil {
			continue
		}
		// Submit normalises its input in place: give it a copy, so the
		// package-level fixtures stay as written.
		in := *a.Application
		in.Gpus = slices.Clone(in.Gpus)
		app, err := w.Onboarding.Submit(ctx, &auth.Viewer{User: u, Roles: u.Roles}, in)
		if err != nil {
			return fmt.Errorf("demo: application of %s: %w", a.Email, err)
		}
		switch a.Outcome {
		case models.ApplicationApproved:
			_, _, err = w.Onboarding.Approve(ctx, admin, app.ID, a.Tier, str("Welcome to GPUnex!"))
		case models.ApplicationInfoRequested:
			_, err = w.Onboarding.RequestInfo(ctx, admin, app.ID, a.Note)
		case models.ApplicationRejected:
			_, err = w.Onboarding.Reject(ctx, admin, app.ID, a.Note)
		}
		if err != nil {
			return fmt.Errorf("demo: review of %s: %w", a.Email, err)
		}
	}
	if err := w.seedPrices(ctx); err != nil {
		return err
	}
	if err := w.seedMarketHistory(ctx); err != nil {
		return err
	}
	if err := w.seedFunds(ctx); err != nil {
		return err
	}
	if err := w.seedEarningsHistory(ctx); err != nil {
		return err
	}
	w.logger().Info("demo: world ready", "accounts", len(Accounts))
	return nil
}

// seedPrices gives each demo provider without prices its Prices: a world
// seeded before prices existed gets them, a provider who set its own
// keeps them.
func (w World) seedPrices(ctx context.Context) error {
	if w.Pricing == nil {
		w.logger().Warn("demo: no pricing service: the demo providers have no prices and nothing is listed")
		return nil
	}
	for _, a := range Accounts {
		if len(a.Prices) == 0 {
			continue
		}
		prov, err := w.providerOf(ctx, a.Email)
		if err != nil || prov == nil {
			continue // changed by hand since: nothing to price
		}
		have, err := w.Pricing.Prices(ctx, prov.ID)
		if err != nil {
			return fmt.Errorf("demo: prices of %s: %w", a.Email, err)
		}
		if len(have) > 0 {
			continue
		}
		for _, model := range slices.Sorted(maps.Keys(a.Prices)) {
			rate, err := models.ParseUSDC(a.Prices[model])
			if err == nil {
				_, err = w.Pricing.SetPrice(ctx, prov.ID, pricing.PriceInput{Model: model, PricePerHour: rate})
			}
			if err != nil {
				return fmt.Errorf("demo: price of %s for %s: %w", model, a.Email, err)
			}
		}
	}
	return nil
}

// providerOf is the provider of the account with this email; nil when the
// account is not an approved provider.
func (w World) providerOf(ctx context.Context, email string) (*models.Provider, error) {
	u, err := w.Auth.UserByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	return w.Providers.ForUser(ctx, u.ID)
}
