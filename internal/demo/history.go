package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/gpunex/gpunex/internal/geo"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/models"
)

// HistoryWeeks is how many weeks before the current one the demo market's
// usage history covers (price advice reads the last four weeks).
const HistoryWeeks = 3

// pastUsage is a demo provider's offer of a model over the history: GPUs
// offered, and the share of their hours rented (percent) in each past
// week, oldest first, at the rate's percentage of its price then. The
// rates moved from week to week so each model's advice sees more than one
// price band; the shares make the models' markets differ: H100s are
// scarce in Europe, L4s idle, A100s and L40S in between, RTX 4090s busy
// in Brazil.
var pastUsage = []struct {
	Email, Model string
	GPUs         int
	PricePct     [HistoryWeeks]int64
	RentedPct    [HistoryWeeks]int64
}{
	{"provider@gpunex.demo", "H100_SXM_80GB", 3, [3]int64{90, 100, 110}, [3]int64{97, 93, 85}},
	{"provider@gpunex.demo", "L4_24GB", 2, [3]int64{90, 100, 110}, [3]int64{40, 28, 15}},
	{"porto@gpunex.demo", "H100_SXM_80GB", 2, [3]int64{90, 100, 110}, [3]int64{98, 94, 88}},
	{"frankfurt@gpunex.demo", "H100_SXM_80GB", 2, [3]int64{100, 100, 110}, [3]int64{92, 90, 81}},
	{"frankfurt@gpunex.demo", "A100_SXM_80GB", 4, [3]int64{90, 100, 110}, [3]int64{75, 62, 48}},
	{"madrid@gpunex.demo", "L4_24GB", 2, [3]int64{90, 100, 110}, [3]int64{35, 22, 10}},
	{"virginia@gpunex.demo", "L4_24GB", 2, [3]int64{90, 100, 100}, [3]int64{30, 20, 20}},
	{"virginia@gpunex.demo", "H100_SXM_80GB", 2, [3]int64{90, 100, 110}, [3]int64{85, 76, 64}},
	{"saopaulo@gpunex.demo", "RTX_4090_24GB", 2, [3]int64{90, 100, 110}, [3]int64{96, 91, 83}},
	{"mumbai@gpunex.demo", "L40S_48GB", 2, [3]int64{90, 100, 110}, [3]int64{55, 41, 30}},
}

// seedMarketHistory lays down the demo market's past weeks of usage (see
// pastUsage) once, so price advice has history to explain itself from on
// the first `make run`: the market's medians are refreshed first, then
// market.ImportUsage writes the weeks unless history exists.
func (w World) seedMarketHistory(ctx context.Context) error {
	if w.Market == nil {
		return nil
	}
	if err := w.Market.Refresh(ctx); err != nil {
		return fmt.Errorf("demo: market refresh: %w", err)
	}
	thisWeek := models.WeekStart(time.Now())
	weeks := make([]market.PastWeek, HistoryWeeks)
	for i := range weeks {
		weeks[i] = market.PastWeek{Start: thisWeek.AddDate(0, 0, -7*(HistoryWeeks-i)), Span: 7 * 24 * time.Hour}
	}
	for _, u := range pastUsage {
		prov, err := w.providerOf(ctx, u.Email)
		if err != nil || prov == nil {
			continue
		}
		rate := demoRate(u.Email, u.Model)
		var loc models.Location
		for _, a := range Accounts {
			if a.Email == u.Email && a.Application != nil && len(a.Application.Gpus) > 0 {
				loc = a.Application.Gpus[0].Location
			}
		}
		place := geo.PlaceOf(loc.City, loc.Region, loc.Country)
		for i := range weeks {
			// Rented GPU-hours in whole percent of the offered ones: the
			// offer is split in a rented and an idle part of the week.
			weeks[i].Offers = append(weeks[i].Offers, &models.ModelSupply{ProviderID: prov.ID, ModelKey: u.Model,
				Price: rate * models.USDC(u.PricePct[i]) / 100, GPUs: u.GPUs * 100, Rented: int(int64(u.GPUs) * u.RentedPct[i]),
				Tier: string(prov.Tier), City: place.City, Country: place.Country, Continent: place.Continent})
		}
	}
	// Offers carry GPUs × 100 so whole percents of them are rented; a
	// hundredth of the week each keeps the hours right.
	for i := range weeks {
		weeks[i].Span /= 100
	}
	wrote, err := w.Market.ImportUsage(ctx, weeks)
	if err != nil {
		return fmt.Errorf("demo: market history: %w", err)
	}
	if wrote {
		w.logger().Info("demo: market history laid down", "weeks", HistoryWeeks)
	}
	return nil
}

// demoRate is the demo account's seeded rate of a model.
func demoRate(email, model string) models.USDC {
	for _, a := range Accounts {
		if a.Email == email {
			if r, err := models.ParseUSDC(a.Prices[model]); err == nil {
				return r
			}
		}
	}
	return 0
}
