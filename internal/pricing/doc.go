// Package pricing holds providers' rates per GPU model (with their
// history), their weekly availability schedules and their planned
// maintenance, and answers for the marketplace whether a provider's GPUs
// are offered at an instant.
//
// # Prices
//
// A provider sets an hourly rate per GPU per hour for each catalogue model
// it has: a model of a GPU on one of its machines, or of its approved
// application's GPU entries (so it can price before its agent runs). A
// rate is models.USDC (micro-USDC, never a float): more than 0 and at most
// Config.MaxPricePerHour (100 USDC by default); the USDC scalar already
// refuses more than six decimals. Every change appends to
// gpu_price_changes, the history Provider.prices lists newest first;
// setting the rate a model already has is no change. A rental keeps the
// rate it started with: the market copies PriceOf into the rental.
//
// # Schedules
//
// A schedule is 24/7 or weekly windows ("HH:MM" to "HH:MM" on a day) in an
// IANA time zone, entered in the application form's shape
// (onboarding.AvailabilityInput) with one difference: a window whose end
// is before its start runs into the next day (FRIDAY 20:00–08:00 ends on
// Saturday at 08:00; a SUNDAY window crosses into Monday of the next
// week), and an end of 00:00 means midnight. A window that ends when it
// starts is empty and refused; two windows sharing a minute of the week
// overlap and are refused, through a midnight crossing included. Windows
// that touch (MONDAY 20:00–24:00 and TUESDAY 00:00–08:00) are one open
// interval. Windows covering the whole week are open with no end, like
// 24/7.
//
// Times are wall-clock times in the zone, worked out per calendar day
// with time.Date, never by adding 24 hours, so an open interval follows
// the zone across daylight-saving changes (a night spanning the spring
// change is an hour shorter, one spanning the autumn change an hour
// longer). A wall time the clock skips (01:30 in Lisbon on 2026-03-29,
// 02:30 in Berlin) is the instant the clock jumps past it, the first
// instant showing a later time; a window wholly inside the skipped hour is
// empty that day. A wall time shown twice (01:30 in Lisbon on 2026-10-25)
// is its first showing. OpenAt and NextChange are these rules as pure
// functions.
//
// Until a provider sets a schedule, its schedule is the availability of
// the first GPU entry of its approved application (24/7 if it has none):
// entries may name different zones, so they are not merged; the provider
// changes it with setAvailabilitySchedule.
//
// # Maintenance
//
// Maintenance windows are declared ahead (a start in the future, an end
// after it) for one machine of the provider or, without a machine, for
// all of them. setAvailabilitySchedule's list replaces the windows that
// have not started (windows under way stay); omitting it leaves them.
// During provider-wide maintenance the schedule is not open (Schedule's
// OpenNow and NextChangeAt include it); a machine's own maintenance hides
// that machine only. MaintenanceBetween finds the first window a rental
// would run into.
//
// # The marketplace's filter
//
// provider_schedules keeps open_from and open_until, the current or next
// open interval in UTC (open_until NULL: open with no end; open_from NULL:
// never open), so the marketplace filters on two columns plus a NOT EXISTS
// on maintenance_windows: WhereOpen writes that filter. The columns are
// written when the schedule is set and moved on by Refresh once the stored
// interval ends; Refresh also stores the starting schedule of providers
// that have none (OnRegistered does it when a provider's first machine
// registers). RunBackground runs Refresh every Config.Tick on the one
// replica that leads.
package pricing
