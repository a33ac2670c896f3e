package pricing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func zone(s string) *string { return &s }

func window(day, startAt, end string) models.AvailabilityWindow {
	return models.AvailabilityWindow{Day: models.Weekday(day), Start: startAt, End: end}
}

// start is Tuesday 09:00 in Lisbon (UTC+0 in December).
func TestStartingScheduleIsTheApplicationsFirstEntry(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		sch, err := b.svc.Schedule(b.ctx, b.provider)
		require.NoError(t, err)
		require.Equal(t, models.AvailabilityWeekly, sch.Availability.Kind)
		require.Equal(t, "Europe/Lisbon", *sch.Availability.TimeZone)
		require.Len(t, sch.Availability.Windows, 5)
		require.True(t, sch.OpenNow)
		require.Equal(t, start.Add(11*time.Hour), sch.NextChangeAt.UTC(), "open until 20:00")

		// The machine's registration stored it for the marketplace.
		row := b.row(t, b.provider)
		require.Equal(t, start.Add(-time.Hour), row.OpenFrom.UTC())
		require.Equal(t, start.Add(11*time.Hour), row.OpenUntil.UTC())
		require.True(t, b.offered(t, b.machineID))

		// A provider without a machine gets it from Refresh.
		other := b.newProvider(t, "nomachine", models.Availability{Kind: models.AvailabilityAlways, Windows: []*models.AvailabilityWindow{}})
		require.NoError(t, b.svc.Refresh(b.ctx))
		row = b.row(t, other)
		require.Equal(t, models.AvailabilityAlways, row.Availability.Kind)
		require.Equal(t, start, row.OpenFrom.UTC())
		require.Nil(t, row.OpenUntil)
	})
}

func TestScheduleRefreshMovesTheOpenIntervalWhenTheClockPassesABound(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		sch, _, err := b.svc.SetSchedule(b.ctx, b.provider, ScheduleInput{Availability: availability.Input{
			Kind: models.AvailabilityWeekly, TimeZone: zone("Europe/Lisbon"), Windows: []models.AvailabilityWindow{window("FRIDAY", "20:00", "08:00")}}})
		require.NoError(t, err)
		friday := time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
		require.False(t, sch.OpenNow)
		require.Equal(t, friday, sch.NextChangeAt.UTC())
		row := b.row(t, b.provider)
		require.Equal(t, friday, row.OpenFrom.UTC())
		require.Equal(t, friday.Add(12*time.Hour), row.OpenUntil.UTC())
		require.False(t, b.offered(t, b.machineID))

		b.clock.Set(friday)
		require.True(t, b.offered(t, b.machineID), "the stored interval opens by itself")
		require.NoError(t, b.svc.Refresh(b.ctx))
		require.Equal(t, friday, b.row(t, b.provider).OpenFrom.UTC(), "nothing to move while it is open")

		b.clock.Set(friday.Add(12 * time.Hour))
		require.False(t, b.offered(t, b.machineID), "closed at Saturday 08:00")
		require.NoError(t, b.svc.Refresh(b.ctx))
		row = b.row(t, b.provider)
		require.Equal(t, friday.AddDate(0, 0, 7), row.OpenFrom.UTC(), "the next Friday")
		require.Equal(t, friday.AddDate(0, 0, 7).Add(12*time.Hour), row.OpenUntil.UTC())

		// Across spring forward: Friday 2027-03-26 20:00 WET to Saturday
		// 08:00 WET, the following one in WEST.
		b.clock.Set(time.Date(2027, 3, 27, 8, 0, 0, 0, time.UTC))
		require.NoError(t, b.svc.Refresh(b.ctx))
		row = b.row(t, b.provider)
		require.Equal(t, time.Date(2027, 4, 2, 19, 0, 0, 0, time.UTC), row.OpenFrom.UTC())
		require.Equal(t, time.Date(2027, 4, 3, 7, 0, 0, 0, time.UTC), row.OpenUntil.UTC())
	})
}

func TestScheduleMaintenanceHidesTheGPUsAndIsFoundBetween(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		second := b.register(t, b.provider, "machine-2", "NVIDIA L4")
		wed10 := start.Add(25 * time.Hour)
		thu10 := wed10.Add(24 * time.Hour)
		note := " disks "
		sch, mws, err := b.svc.SetSchedule(b.ctx, b.provider, ScheduleInput{
			Availability: availability.Input{Kind: models.AvailabilityAlways},
			Maintenance: []MaintenanceInput{
				{MachineID: &b.machineID, StartsAt: thu10, EndsAt: thu10.Add(time.Hour)},
				{StartsAt: wed10, EndsAt: wed10.Add(2 * time.Hour), Note: &note},
			}})
		require.NoError(t, err)
		require.True(t, sch.OpenNow)
		require.Equal(t, wed10, sch.NextChangeAt.UTC(), "24/7 changes only for provider-wide maintenance")
		require.Len(t, mws, 2)
		require.Nil(t, mws[0].MachineID, "soonest first")
		require.Equal(t, "disks", *mws[0].Note)

		between := func(from, to time.Time) *models.MaintenanceWindow {
			t.Helper()
			mw, err := b.svc.MaintenanceBetween(b.ctx, b.machineID, from, to)
			require.NoError(t, err)
			return mw
		}
		require.Equal(t, mws[0].ID, between(start, wed10.Add(time.Minute)).ID, "the provider-wide window")
		require.Equal(t, mws[1].ID, between(wed10.Add(2*time.Hour), thu10.Add(30*time.Minute)).ID, "the machine's own window")
		require.Nil(t, between(start, wed10), "a rental ending when maintenance starts does not run into it")
		require.Nil(t, between(wed10.Add(2*time.Hour), thu10))
		mw, err := b.svc.MaintenanceBetween(b.ctx, second, thu10, thu10.Add(time.Hour))
		require.NoError(t, err)
		require.Nil(t, mw, "another machine's window does not concern this one")

		b.clock.Set(wed10.Add(30 * time.Minute))
		sch, err = b.svc.Schedule(b.ctx, b.provider)
		require.NoError(t, err)
		require.False(t, sch.OpenNow, "hidden during maintenance")
		require.Equal(t, wed10.Add(2*time.Hour), sch.NextChangeAt.UTC())
		require.False(t, b.offered(t, b.machineID))
		require.False(t, b.offered(t, second))

		b.clock.Set(thu10.Add(30 * time.Minute))
		require.False(t, b.offered(t, b.machineID), "the machine under maintenance is hidden")
		require.True(t, b.offered(t, second), "its neighbour is not")
		mws, err = b.svc.Maintenance(b.ctx, b.provider)
		require.NoError(t, err)
		require.Len(t, mws, 1, "ended windows are not listed")

		// A weekly schedule with maintenance inside an open interval.
		b.clock.Set(start)
		sch, _, err = b.svc.SetSchedule(b.ctx, b.provider, ScheduleInput{Availability: availability.Input{
			Kind: models.AvailabilityWeekly, TimeZone: zone("Europe/Lisbon"), Windows: []models.AvailabilityWindow{window("TUESDAY", "08:00", "20:00")}}})
		require.NoError(t, err)
		require.True(t, sch.OpenNow)
		require.Equal(t, start.Add(11*time.Hour), sch.NextChangeAt.UTC(), "maintenance kept (nil leaves it), none today")
		_, mws, err = b.svc.SetSchedule(b.ctx, b.provider, ScheduleInput{Availability: availability.Input{Kind: models.AvailabilityAlways},
			Maintenance: []MaintenanceInput{}})
		require.NoError(t, err)
		require.Empty(t, mws, "an empty list removes the windows that have not started")
	})
}

func TestSetScheduleRefusesBadInputChangingNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		other := b.newProvider(t, "other", weekdays("UTC", "00:00", "24:00"))
		foreign := b.register(t, other, "machine-other", "NVIDIA L4")
		before := b.row(t, b.provider)
		home := availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("Europe/Lisbon"),
			Windows: []models.AvailabilityWindow{window("FRIDAY", "20:00", "08:00")}}
		later := start.Add(24 * time.Hour)
		cases := []struct {
			desc string
			in   ScheduleInput
			want map[string]string
		}{
			{"overlap through midnight", ScheduleInput{Availability: availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("Europe/Lisbon"),
				Windows: []models.AvailabilityWindow{window("FRIDAY", "20:00", "08:00"), window("SATURDAY", "07:59", "10:00")}}},
				map[string]string{"input.availability.windows.1": "OVERLAP"}},
			{"an empty window", ScheduleInput{Availability: availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("Europe/Lisbon"),
				Windows: []models.AvailabilityWindow{window("FRIDAY", "20:00", "20:00")}}},
				map[string]string{"input.availability.windows.0.end": "EMPTY_WINDOW"}},
			{"an unknown zone", ScheduleInput{Availability: availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("Europe/Atlantis"),
				Windows: []models.AvailabilityWindow{window("FRIDAY", "20:00", "08:00")}}},
				map[string]string{"input.availability.timeZone": "UNKNOWN_TIME_ZONE"}},
			{"maintenance in the past", ScheduleInput{Availability: home, Maintenance: []MaintenanceInput{{StartsAt: start.Add(-time.Hour), EndsAt: later}}},
				map[string]string{"input.maintenance.0.startsAt": "OUT_OF_RANGE"}},
			{"maintenance ending before it starts", ScheduleInput{Availability: home, Maintenance: []MaintenanceInput{{StartsAt: later, EndsAt: later.Add(-time.Minute)}}},
				map[string]string{"input.maintenance.0.endsAt": "EMPTY_WINDOW"}},
			{"another provider's machine", ScheduleInput{Availability: home, Maintenance: []MaintenanceInput{
				{StartsAt: later, EndsAt: later.Add(time.Hour)}, {MachineID: &foreign, StartsAt: later, EndsAt: later.Add(time.Hour)}}},
				map[string]string{"input.maintenance.1.machineId": "INVALID"}},
		}
		for _, tc := range cases {
			_, _, err := b.svc.SetSchedule(b.ctx, b.provider, tc.in)
			requireProblems(t, err, tc.want)
		}
		after := b.row(t, b.provider)
		require.Equal(t, before.Availability, after.Availability)
		require.Equal(t, before.UpdatedAt.UTC(), after.UpdatedAt.UTC())
		n, err := b.db.NewSelect().Model((*models.MaintenanceWindow)(nil)).Count(b.ctx)
		require.NoError(t, err)
		require.Zero(t, n)
	})
}
