// Package demo is the demo world of `gpunex serve --demo`: the accounts
// and provider applications the README lists (Seed), and the demo
// provider's machines, run in-process as real agents (RunAgents).
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
	"slices"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bench"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/internal/provider"
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
}

func str(s string) *string { return &s }

func demoApplication(name, email string, company *string, ups bool, months int, gpus ...onboarding.GPUInput) *onboarding.Input {
	return &onboarding.Input{FullName: name, Email: email, Company: company, UpsProtected: ups, CommitmentMonths: months, Gpus: gpus}
}

func alwaysGPU(model string, qty int, city, country string) onboarding.GPUInput {
	return onboarding.GPUInput{
		ModelKey: model, Quantity: qty, RAMGb: 512, UploadGbps: 10, DownloadGbps: 10,
		Availability: onboarding.AvailabilityInput{Kind: models.AvailabilityAlways},
		Location:     models.Location{City: str(city), Country: str(country)},
	}
}

func eveningsGPU(model string, qty int, tz, city, country string) onboarding.GPUInput {
	g := onboarding.GPUInput{
		ModelKey: model, Quantity: qty, RAMGb: 64, UploadGbps: 0.5, DownloadGbps: 1,
		Availability: onboarding.AvailabilityInput{Kind: models.AvailabilityWeekly, TimeZone: str(tz)},
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

func otherGPU(g onboarding.GPUInput, name string) onboarding.GPUInput {
	g.OtherModel = &name
	return g
}

// Accounts are the accounts `gpunex serve --demo` makes sure exist: an
// admin, an approved provider, a customer, and applicants whose
// applications wait in each state of review.
var Accounts = []Account{
	{Email: "admin@gpunex.demo", Name: "Ada Admin", Admin: true},
	{Email: "provider@gpunex.demo", Name: "Priya Provider", Outcome: models.ApplicationApproved,
		Application: demoApplication("Priya Provider", "provider@gpunex.demo", str("Lisbon GPU Works"), true, 12,
			alwaysGPU("H100_SXM_80GB", 8, "Lisbon", "Portugal"), alwaysGPU("L4_24GB", 4, "Lisbon", "Portugal"))},
	{Email: "customer@gpunex.demo", Name: "Carlos Customer"},
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
			_, _, err = w.Onboarding.Approve(ctx, admin, app.ID, nil, str("Welcome to GPUnex!"))
		case models.ApplicationInfoRequested:
			_, err = w.Onboarding.RequestInfo(ctx, admin, app.ID, a.Note)
		case models.ApplicationRejected:
			_, err = w.Onboarding.Reject(ctx, admin, app.ID, a.Note)
		}
		if err != nil {
			return fmt.Errorf("demo: review of %s: %w", a.Email, err)
		}
	}
	w.logger().Info("demo: world ready", "accounts", len(Accounts))
	return nil
}
