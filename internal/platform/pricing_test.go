package platform_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
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
			{"negative", "H100_SXM_80GB", "-1", []fieldCode{{"input.pricePerHour", "OUT_OF_RANGE"}}},
			{"over the 100 USDC cap", "H100_SXM_80GB", "100.000001", []fieldCode{{"input.pricePerHour", "OUT_OF_RANGE"}}},
			{"unknown model", "TPU_V5", "1", []fieldCode{{"input.model", "UNKNOWN_MODEL"}}},
			{"a model the provider has not", "L4_24GB", "1", []fieldCode{{"input.model", "INVALID"}}},
		} {
			res := price(tc.model, tc.amount)
			require.Equal(t, tc.want, res.SetGpuPrice.UserErrors, tc.desc)
			require.Nil(t, res.SetGpuPrice.Price, tc.desc)
		}
		r := p.User.Do(setGpuPrice, map[string]any{"i": map[string]any{"model": "H100_SXM_80GB", "pricePerHour": "1.0000001"}})
		require.NotEmpty(t, r.Codes(), "the USDC scalar refuses a seventh decimal")

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
