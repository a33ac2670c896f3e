package platform_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

const setGpuPrice = `mutation($i: SetGpuPriceInput!) {
  setGpuPrice(input: $i) { price { modelKey model { key } pricePerHour history { pricePerHour at } } userErrors { field code } }
}`

const setSchedule = `mutation($i: SetAvailabilityScheduleInput!) {
  setAvailabilitySchedule(input: $i) {
    schedule { availability { kind timeZone windows { day start end } } openNow nextChangeAt }
    maintenance { id machineId startsAt endsAt note }
    userErrors { field code }
  }
}`

const myPricing = `{ myProvider {
  machines { id }
  prices { modelKey pricePerHour history { pricePerHour } }
  schedule { availability { kind timeZone windows { day start end } } openNow nextChangeAt }
  maintenance { id machineId startsAt endsAt }
} }`

type fieldCode struct{ Field, Code string }

type priceAnswer struct {
	SetGpuPrice struct {
		Price *struct {
			ModelKey     string
			Model        *struct{ Key string }
			PricePerHour string
			History      []struct{ PricePerHour, At string }
		}
		UserErrors []fieldCode
	}
}

type pricingView struct {
	MyProvider struct {
		Machines []struct{ ID string }
		Prices   []struct {
			ModelKey, PricePerHour string
			History                []struct{ PricePerHour string }
		}
		Schedule struct {
			Availability struct {
				Kind     string
				TimeZone *string
				Windows  []struct{ Day, Start, End string }
			}
			OpenNow      bool
			NextChangeAt *string
		}
		Maintenance []struct {
			ID, StartsAt, EndsAt string
			MachineID            *string
		}
	}
}

func TestPricesAreSetWithHistoryAndBadPricesChangeNothing(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "pricing")
		price := func(model, amount string) priceAnswer {
			t.Helper()
			var res priceAnswer
			p.User.MustDo(&res, setGpuPrice, map[string]any{"i": map[string]any{"model": model, "pricePerHour": amount}})
			return res
		}
		// The application's H100s can be priced before the agent runs.
		res := price("H100_SXM_80GB", "2.15")
		require.Empty(t, res.SetGpuPrice.UserErrors)
		require.Equal(t, "2.150000", res.SetGpuPrice.Price.PricePerHour)
		require.Equal(t, "H100_SXM_80GB", res.SetGpuPrice.Price.Model.Key)
		res = price("H100_SXM_80GB", "2.5")
		require.Len(t, res.SetGpuPrice.Price.History, 2)
		require.Equal(t, "2.500000", res.SetGpuPrice.Price.History[0].PricePerHour, "newest first")

		for _, tc := range []struct {
			desc, model, amount string
			want                []fieldCode
		}{
			{"zero", "H100_SXM_80GB", "0", []fieldCode{{"input.pricePerHour", "OUT_OF_RANGE"}}},
			{"over the 100 USDC cap", "H100_SXM_80GB", "100.000001", []fieldCode{{"input.pricePerHour", "OUT_OF_RANGE"}}},
			{"unknown model", "TPU_V5", "1", []fieldCode{{"input.model", "UNKNOWN_MODEL"}}},
			{"a model the provider has not", "L4_24GB", "1", []fieldCode{{"input.model", "INVALID"}}},
		} {
			res := price(tc.model, tc.amount)
			require.Equal(t, tc.want, res.SetGpuPrice.UserErrors, tc.desc)
			require.Nil(t, res.SetGpuPrice.Price, tc.desc)
		}
		// The USDC scalar refuses, naming the field: a seventh decimal, an
		// exponent, a sign, spaces, more than int64 holds.
		for _, bad := range []string{"1.0000001", "1e3", "-1", "+1", " 1", "1 ", "99999999999999999999"} {
			r := p.User.Do(setGpuPrice, map[string]any{"i": map[string]any{"model": "H100_SXM_80GB", "pricePerHour": bad}})
			require.Equal(t, []string{"BAD_USER_INPUT"}, r.Codes(), bad)
			require.Equal(t, "input.pricePerHour", r.Errors[0].Extensions["field"], bad)
		}

		var view pricingView
		p.User.MustDo(&view, myPricing, nil)
		require.Len(t, view.MyProvider.Prices, 1)
		require.Equal(t, "2.500000", view.MyProvider.Prices[0].PricePerHour, "nothing refused changed the price")
		require.Len(t, view.MyProvider.Prices[0].History, 2)

		anonymous := s.NewAPIClient(t, "").Do(setGpuPrice, map[string]any{"i": map[string]any{"model": "H100_SXM_80GB", "pricePerHour": "1"}})
		require.Equal(t, []string{"UNAUTHENTICATED"}, anonymous.Codes())
	})
}

func TestScheduleAndMaintenanceAreSetAndShown(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "schedule")
		registered(t, s, p)
		other := s.NewProvider(t, "schedule-other")
		registered(t, s, other)

		var view pricingView
		p.User.MustDo(&view, myPricing, nil)
		require.Equal(t, "ALWAYS", view.MyProvider.Schedule.Availability.Kind, "the application's availability to start with")
		require.True(t, view.MyProvider.Schedule.OpenNow)
		require.Nil(t, view.MyProvider.Schedule.NextChangeAt)
		machineID := view.MyProvider.Machines[0].ID
		var otherView pricingView
		other.User.MustDo(&otherView, myPricing, nil)

		home := map[string]any{"kind": "WEEKLY", "timeZone": "Europe/Lisbon",
			"windows": []any{map[string]any{"day": "FRIDAY", "start": "20:00", "end": "08:00"}}}
		soon := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Second)
		maintenance := func(machine any, from, to time.Time) map[string]any {
			return map[string]any{"machineId": machine, "startsAt": from.Format(time.RFC3339), "endsAt": to.Format(time.RFC3339)}
		}
		type answer struct {
			SetAvailabilitySchedule struct {
				Schedule *struct {
					Availability struct{ Kind string }
					OpenNow      bool
					NextChangeAt *string
				}
				Maintenance []struct{ ID string }
				UserErrors  []fieldCode
			}
		}
		for _, tc := range []struct {
			desc  string
			input map[string]any
			want  []fieldCode
		}{
			{"overlap through midnight", map[string]any{"availability": map[string]any{"kind": "WEEKLY", "timeZone": "Europe/Lisbon", "windows": []any{
				map[string]any{"day": "FRIDAY", "start": "20:00", "end": "08:00"}, map[string]any{"day": "SATURDAY", "start": "07:00", "end": "09:00"}}}},
				[]fieldCode{{"input.availability.windows.1", "OVERLAP"}}},
			{"unknown zone", map[string]any{"availability": map[string]any{"kind": "WEEKLY", "timeZone": "Moon/Base",
				"windows": []any{map[string]any{"day": "FRIDAY", "start": "20:00", "end": "08:00"}}}},
				[]fieldCode{{"input.availability.timeZone", "UNKNOWN_TIME_ZONE"}}},
			{"past maintenance", map[string]any{"availability": home, "maintenance": []any{maintenance(nil, soon.Add(-72*time.Hour), soon)}},
				[]fieldCode{{"input.maintenance.0.startsAt", "OUT_OF_RANGE"}}},
			{"another provider's machine", map[string]any{"availability": home, "maintenance": []any{maintenance(otherView.MyProvider.Machines[0].ID, soon, soon.Add(time.Hour))}},
				[]fieldCode{{"input.maintenance.0.machineId", "INVALID"}}},
			{"a malformed machine id", map[string]any{"availability": home, "maintenance": []any{maintenance("zzz", soon, soon.Add(time.Hour))}},
				[]fieldCode{{"input.maintenance.0.machineId", "INVALID"}}},
		} {
			var res answer
			p.User.MustDo(&res, setSchedule, map[string]any{"i": tc.input})
			require.Equal(t, tc.want, res.SetAvailabilitySchedule.UserErrors, tc.desc)
			require.Nil(t, res.SetAvailabilitySchedule.Schedule, tc.desc)
		}

		var res answer
		p.User.MustDo(&res, setSchedule, map[string]any{"i": map[string]any{"availability": home, "maintenance": []any{
			maintenance(machineID, soon, soon.Add(time.Hour)), maintenance(nil, soon.Add(24*time.Hour), soon.Add(26*time.Hour))}}})
		require.Empty(t, res.SetAvailabilitySchedule.UserErrors)
		require.Equal(t, "WEEKLY", res.SetAvailabilitySchedule.Schedule.Availability.Kind)
		require.NotNil(t, res.SetAvailabilitySchedule.Schedule.NextChangeAt)
		require.Len(t, res.SetAvailabilitySchedule.Maintenance, 2)

		p.User.MustDo(&view, myPricing, nil)
		sch := view.MyProvider.Schedule
		require.Equal(t, "Europe/Lisbon", *sch.Availability.TimeZone)
		require.Equal(t, []struct{ Day, Start, End string }{{"FRIDAY", "20:00", "08:00"}}, sch.Availability.Windows)
		mws := view.MyProvider.Maintenance
		require.Len(t, mws, 2)
		require.Equal(t, machineID, *mws[0].MachineID, "soonest first")
		require.Nil(t, mws[1].MachineID, "every machine")

		// The other provider's dashboard does not show these.
		other.User.MustDo(&otherView, myPricing, nil)
		require.Empty(t, otherView.MyProvider.Maintenance)
		require.Equal(t, "ALWAYS", otherView.MyProvider.Schedule.Availability.Kind)
	})
}

const pricingRecommendationQuery = `query R($model: String!, $region: String) {
  pricingRecommendation(model: $model, region: $region) {
    modelKey model { key } ownsModel basis region { level city country continent }
    market { region { level city country } p10 p50 p90 gpuCount providerCount }
    demand { region { level } weeks offeredGpuHours rentedGpuHours utilization fitted
      bands { minPricePerHour maxPricePerHour offeredGpuHours rentedGpuHours utilization } }
    minPricePerHour maxPricePerHour platformFeeBps hoursPerMonth
    recommended { pricePerHour utilization monthlyEarnings }
    current { pricePerHour utilization monthlyEarnings }
    curve { pricePerHour utilization monthlyEarnings }
    reasons { code region { level city country continent } gpuCount providerCount utilization gpuHours weeks percent modelCount pricePerHour limitPerHour }
  } }`

type region struct {
	Level                    string
	City, Country, Continent *string
}

type outcome struct {
	PricePerHour, MonthlyEarnings string
	Utilization                   float64
}

type recommendationAnswer struct {
	PricingRecommendation struct {
		ModelKey  string
		OwnsModel bool
		Basis     string
		Region    region
		Market    *struct {
			Region                  region
			P10, P50, P90           string
			GpuCount, ProviderCount int
		}
		Demand struct {
			Region      region
			Weeks       int
			Utilization float64
			Bands       []struct {
				MinPricePerHour, MaxPricePerHour *string
				Utilization                      float64
			}
		}
		MinPricePerHour, MaxPricePerHour string
		PlatformFeeBps, HoursPerMonth    int
		Recommended                      outcome
		Current                          *outcome
		Curve                            []outcome
		Reasons                          []struct {
			Code     string
			Region   *region
			GpuCount *int
		}
	}
}

// A provider asks for price advice over GraphQL, applies it with
// setGpuPrice, and the marketplace shows the new price; bad input and
// callers who are not providers get coded errors.
func TestPricingRecommendationOverGraphQL(t *testing.T) {
	t.Parallel()
	// A clock of its own: the week's utilisation is 6/7 exactly only while
	// no time passes between laying the week down and asking (a background
	// refresh would add the seconds a busy machine takes, offered unrented).
	eachOnItsOwnClock(t, time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC), func(t *testing.T, s *platformtest.Server, clk *clock.Manual) {
		ctx := context.Background()
		me := s.NewProvider(t, "advised")
		marketMachine(t, s, me, "advised-machine", 2, 90, 4_000_000)
		for i, price := range []int64{2_000_000, 2_500_000, 3_000_000} {
			c := s.NewProvider(t, fmt.Sprintf("rival-%d", i))
			marketMachine(t, s, c, fmt.Sprintf("rival-machine-%d", i), 2, 90, price)
		}
		require.NoError(t, s.Platform.Market.Refresh(ctx))
		// A week of the rivals' usage at 90 % rented, laid down with the
		// refresh's own arithmetic.
		var supply []*models.ModelSupply
		require.NoError(t, s.Platform.DB.NewSelect().Model(&supply).Where("provider_id <> ?", me.ID).Scan(ctx))
		require.Len(t, supply, 3)
		for _, r := range supply {
			r.Rented = r.GPUs
		}
		medians := map[string]models.USDC{"H100_SXM_80GB": 2_500_000}
		require.NoError(t, market.AddUsage(ctx, s.Platform.DB, models.WeekStart(clk.Now()), 6*24*time.Hour, supply, medians))
		require.NoError(t, market.AddUsage(ctx, s.Platform.DB, models.WeekStart(clk.Now()), 24*time.Hour,
			[]*models.ModelSupply{{ProviderID: supply[0].ProviderID, ModelKey: "H100_SXM_80GB", Price: supply[0].Price, GPUs: 6, City: "lisbon", Country: "PT", Continent: "EU"}}, medians))

		var rec recommendationAnswer
		me.User.MustDo(&rec, pricingRecommendationQuery, map[string]any{"model": "H100_SXM_80GB"})
		r := rec.PricingRecommendation
		require.Equal(t, "CITY", r.Region.Level)
		require.Equal(t, "lisbon", *r.Region.City)
		require.Equal(t, "PT", *r.Region.Country)
		require.True(t, r.OwnsModel)
		require.Equal(t, "MARKET", r.Basis)
		require.NotNil(t, r.Market)
		require.Equal(t, []any{"2.000000", "2.500000", "3.000000", 6, 3}, []any{r.Market.P10, r.Market.P50, r.Market.P90, r.Market.GpuCount, r.Market.ProviderCount},
			"the rivals' prices, not the provider's own 4 USDC")
		require.InDelta(t, 6.0/7, r.Demand.Utilization, 1e-6)
		require.Equal(t, 1500, r.PlatformFeeBps)
		require.Equal(t, 730, r.HoursPerMonth)
		require.NotNil(t, r.Current)
		require.Equal(t, "4.000000", r.Current.PricePerHour)
		require.Len(t, r.Curve, 25)
		codes := map[string]bool{}
		for _, reason := range r.Reasons {
			codes[reason.Code] = true
		}
		require.True(t, codes["MARKET_REGION"] && codes["DEMAND_REGION"] && codes["SUPPLY_SCARCE"] && codes["REVENUE_PEAK"], "%v", codes)

		// One click: the recommendation becomes the rate, and the
		// marketplace lists it.
		var set priceAnswer
		me.User.MustDo(&set, setGpuPrice, map[string]any{"i": map[string]any{"model": "H100_SXM_80GB", "pricePerHour": r.Recommended.PricePerHour}})
		require.Empty(t, set.SetGpuPrice.UserErrors)
		var listed marketplaceData
		s.NewAPIClient(t, "").MustDo(&listed, marketplaceQuery, map[string]any{"filter": map[string]any{"minPerformance": 0}})
		prices := map[string]bool{}
		for _, e := range listed.Marketplace.Edges {
			prices[e.Node.PricePerHour] = true
		}
		require.True(t, prices[r.Recommended.PricePerHour], "the marketplace shows the applied price %s: %v", r.Recommended.PricePerHour, prices)
		require.False(t, prices["4.000000"])

		// Elsewhere, and before buying.
		var world recommendationAnswer
		me.User.MustDo(&world, pricingRecommendationQuery, map[string]any{"model": "A100_SXM_80GB", "region": "world"})
		require.False(t, world.PricingRecommendation.OwnsModel)
		require.Equal(t, "REFERENCE_PERFORMANCE", world.PricingRecommendation.Basis)
		require.Nil(t, world.PricingRecommendation.Market)

		// Bad input and the wrong callers.
		res := me.User.Do(pricingRecommendationQuery, map[string]any{"model": "H9000"})
		require.Equal(t, []string{"BAD_USER_INPUT"}, res.Codes())
		require.Contains(t, res.Errors[0].Message, "model")
		res = me.User.Do(pricingRecommendationQuery, map[string]any{"model": "H100_SXM_80GB", "region": "Atlantis"})
		require.Equal(t, []string{"BAD_USER_INPUT"}, res.Codes())
		require.Contains(t, res.Errors[0].Message, "region")
		res = s.NewAPIClient(t, "").Do(pricingRecommendationQuery, map[string]any{"model": "H100_SXM_80GB"})
		require.Equal(t, []string{"UNAUTHENTICATED"}, res.Codes())
		res = customer(t, s, "not-a-provider").Do(pricingRecommendationQuery, map[string]any{"model": "H100_SXM_80GB"})
		require.Equal(t, []string{"FORBIDDEN"}, res.Codes())
	})
}
