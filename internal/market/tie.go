package market

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// publicMailDomains are mail services anyone can sign up with: two
// accounts there say nothing about who they work for, so sharing one
// ties no customer to a provider. Any other domain is a company's (users'
// emails are verified at sign-up).
var publicMailDomains = map[string]bool{
	"gmail.com": true, "googlemail.com": true, "outlook.com": true, "hotmail.com": true, "live.com": true, "msn.com": true,
	"yahoo.com": true, "ymail.com": true, "icloud.com": true, "me.com": true, "mac.com": true, "aol.com": true,
	"proton.me": true, "protonmail.com": true, "pm.me": true, "gmx.com": true, "gmx.de": true, "gmx.net": true, "web.de": true,
	"mail.com": true, "zoho.com": true, "yandex.ru": true, "yandex.com": true, "mail.ru": true, "qq.com": true, "163.com": true,
	"126.com": true, "naver.com": true, "rediffmail.com": true, "fastmail.com": true, "tutanota.com": true, "hey.com": true,
}

// party is what ties an account to a provider: the user, the email's
// domain (empty for a public mail service) and the payout destinations
// of the provider the user runs, if any.
type party struct {
	userID  int64
	domain  string
	payouts []string
}

// reservedSuffixes are names no company's mail lives under: the names
// RFC 2606 and RFC 6761 reserve for examples and tests, and the private
// .local, .internal and .demo (the demo world's accounts are all
// @gpunex.demo; no root zone delegates .demo). Sharing one ties nobody.
var reservedSuffixes = []string{".test", ".example", ".invalid", ".localhost", ".local", ".internal", ".demo",
	"example.com", "example.net", "example.org"}

// domainOf is the domain of email, lower case, or "" for a public mail
// service or a reserved name.
func domainOf(email string) string {
	_, d, ok := strings.Cut(strings.ToLower(strings.TrimSpace(email)), "@")
	if !ok || d == "" || publicMailDomains[d] {
		return ""
	}
	for _, r := range reservedSuffixes {
		if d == strings.TrimPrefix(r, ".") || strings.HasSuffix(d, r) || strings.HasSuffix(d, "."+r) {
			return ""
		}
	}
	return d
}

// customerParty is the customer's side of a tie.
func (s *Service) customerParty(ctx context.Context, customerID int64) (party, error) {
	p := party{userID: customerID}
	var emails []string
	if err := s.deps.DB.NewSelect().TableExpr("users").ColumnExpr("email").Where("id = ?", customerID).Scan(ctx, &emails); err != nil {
		return p, fmt.Errorf("market: unable to read the customer: %w", err)
	}
	if len(emails) > 0 {
		p.domain = domainOf(emails[0])
	}
	var err error
	p.payouts, err = s.payoutDestinations(ctx, "pv.user_id = ?", customerID)
	return p, err
}

// destinationsOf is m's payout wallet and IBAN, those it has.
func destinationsOf(m *models.PayoutMethod) []string {
	var out []string
	for _, d := range []*string{m.SolanaAddress, m.IBAN} {
		if d != nil && *d != "" {
			out = append(out, *d)
		}
	}
	return out
}

// payoutDestinations are the payout wallet and IBAN of the providers
// matching where (on providers AS pv).
func (s *Service) payoutDestinations(ctx context.Context, where string, arg any) ([]string, error) {
	var methods []*models.PayoutMethod
	if err := s.deps.DB.NewSelect().Model(&methods).Join("JOIN providers AS pv ON pv.id = pm.provider_id").Where(where, arg).Scan(ctx); err != nil {
		return nil, fmt.Errorf("market: unable to read payout methods: %w", err)
	}
	var out []string
	for _, m := range methods {
		out = append(out, destinationsOf(m)...)
	}
	return out, nil
}

// ties says, for each of providerIDs, why customer may not rent its GPUs
// (absent when nothing ties them): the provider is the customer's own,
// shares the customer's company email domain, or pays out to one of the
// customer's payout destinations. A provider renting its own GPUs buys
// itself listings, completed jobs and reliability with money that goes
// round in a circle. Two statements at most, however many providers: a
// start asks about all its candidates at once.
func (s *Service) ties(ctx context.Context, customer party, providerIDs []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(providerIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		ID     int64  `bun:"id"`
		UserID int64  `bun:"user_id"`
		Email  string `bun:"email"`
	}
	if err := s.deps.DB.NewSelect().TableExpr("providers AS pv").Join("JOIN users AS u ON u.id = pv.user_id").
		ColumnExpr("pv.id, pv.user_id, u.email").Where("pv.id IN (?)", bun.List(providerIDs)).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("market: unable to read the providers: %w", err)
	}
	for _, r := range rows {
		switch {
		case r.UserID == customer.userID:
			out[r.ID] = "these are your own GPUs: a provider cannot rent its own GPUs"
		case customer.domain != "" && domainOf(r.Email) == customer.domain:
			out[r.ID] = "this provider shares your email domain (" + customer.domain + "): a provider cannot rent its own GPUs"
		}
	}
	if len(customer.payouts) == 0 {
		return out, nil
	}
	var methods []*models.PayoutMethod
	if err := s.deps.DB.NewSelect().Model(&methods).Where("pm.provider_id IN (?)", bun.List(providerIDs)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("market: unable to read payout methods: %w", err)
	}
	for _, m := range methods {
		if out[m.ProviderID] != "" {
			continue
		}
		for _, d := range destinationsOf(m) {
			for _, mine := range customer.payouts {
				if strings.EqualFold(d, mine) {
					out[m.ProviderID] = "this provider is paid out to your payout destination: a provider cannot rent its own GPUs"
				}
			}
		}
	}
	return out, nil
}

// ownGPUs is the refusal of a rental of GPUs tied to the customer.
func ownGPUs(field, why string) error {
	v := &fault.Validation{}
	v.Add(field, fault.OwnGPUs, why)
	return v
}
