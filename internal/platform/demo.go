package platform

import (
	"context"
	"fmt"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// DemoPassword is the password of every demo account (README lists them).
const DemoPassword = "gpunex-demo"

// DemoAccounts are the accounts `gpunex serve --demo` makes sure exist.
var DemoAccounts = []struct {
	Email string
	Name  string
	Roles []models.Role
}{
	{Email: "admin@gpunex.demo", Name: "Ada Admin", Roles: []models.Role{models.RoleAdmin}},
	{Email: "provider@gpunex.demo", Name: "Priya Provider", Roles: []models.Role{models.RoleProvider}},
	{Email: "customer@gpunex.demo", Name: "Carlos Customer", Roles: nil},
}

// SeedDemo creates the demo world. It is idempotent: accounts that exist
// are left as they are, so restarting with --demo keeps your changes.
func SeedDemo(ctx context.Context, p *Platform) error {
	for _, a := range DemoAccounts {
		if _, err := p.Auth.UserByEmail(ctx, a.Email); err == nil {
			continue
		} else if fault.CodeOf(err) != fault.NotFound {
			return fmt.Errorf("platform: demo: %w", err)
		}
		if _, err := p.Auth.CreateUser(ctx, auth.SignUpInput{Email: a.Email, Name: a.Name, Password: DemoPassword}, a.Roles...); err != nil {
			return fmt.Errorf("platform: demo: unable to create %s: %w", a.Email, err)
		}
	}
	p.cfg.Logger.Info("platform: demo world ready", "accounts", len(DemoAccounts))
	return nil
}
