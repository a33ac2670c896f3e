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
// (availability.Input) with one difference: a window whose end
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
//
// # Price advice
//
// Recommend answers pricingRecommendation: for one model in one region
// (the provider's location by default), what comparable GPUs cost, how
// much of their time is rented at each price, and the price expected to
// earn a GPU the most. It reads only aggregates the market's refresh
// keeps up to date every minute, never rentals or GPUs, in at most three
// statements: the provider's side (tier, location from its application,
// its rate, the model's median), the model's supply (model_supply: one
// row per provider offering the model now), and the usage of the last
// DemandWeeks weeks by place and band with the provider's own share (or,
// with no market, every model's median). Its cost follows the number of
// providers of the model and of places, not the rental history.
//
// Where. A region is a rung of a ladder (internal/geo): a city or
// datacenter region with its country, the country, its continent, the
// world. Prices come from the narrowest rung, from the one asked up, with
// at least MinComparableGPUs GPUs of MinComparableProviders providers; the
// rungs passed over are reasons (MARKET_WIDENED). Utilisation comes from
// the narrowest rung that offered at least MinDemandHours GPU-hours in the
// window. The asking provider's own offers never count: its supply rows
// are left out, and its own usage (provider_usage) is taken from every
// rung that contains its location.
//
// Percentiles are weighted by GPU (nearest rank: the p-th percentile is
// the price of the GPU at rank ceil(p·n/100) in price order).
//
// How utilisation is estimated. Every refresh, the time since the last
// one (at most the market's MaxUsageGap) is credited to each provider's
// offered GPUs (on an online machine, listed by their benchmarks, inside
// the schedule, outside maintenance) and to those of them rented, in the
// week (from Monday 00:00 UTC), the place and the price band of the
// provider's rate against the model's median: bands are 10 % steps
// (band k holds 1.1^(k−½) to 1.1^(k+½) times the median, integer edges in
// basis points). Offered and rented are sampled together, so utilisation,
// rented over offered, is between 0 and 1 and follows schedules and
// outages as well as rentals.
//
// How the curve is fitted. Expected utilisation at a rate r times the
// model's median is a logistic curve in log price, u(r) = σ(a − s·ln r),
// which falls as the price rises and never leaves (0, 1). It is fitted
// deterministically (demand.go, fitCurve): the pooled utilisation U mixes
// PriorHours of PriorUtilization (75 %) into the window's hours; each band
// with MinBandHours gives a point (its centre's log ratio, the log-odds of
// its utilisation smoothed towards U); with two such bands or more, a
// least-squares line weighted by offered hours gives the slope, mixed with
// PriorSlope at SlopeHours of weight and held to [MinSlope, MaxSlope];
// with fewer the slope is PriorSlope. The intercept puts the curve
// through U at the data's weighted mean price. Thin data therefore leans
// on the prior, and no data at all gives 75 % at the median.
//
// The recommendation. Revenue per GPU is rate × u(rate); on this curve it
// peaks where u = 1 − 1/s (75 % under the prior slope), so a busy market
// (U above 75 %) advises above the median and a quiet one below. The
// advice is the rate, to the cent, with the most expected monthly earnings
// inside the market's band: its p10 to p90, widened to at least
// BandFloorPct–BandCeilPct of the median, and for an Enterprise provider
// EnterpriseHeadroomPct above the top (its listings rank higher). When the
// peak lies outside the band the advice says it is held there (HELD_AT_HIGH,
// HELD_AT_LOW).
//
// Earnings. A GPU's expected monthly earnings at a rate are rate ×
// utilisation × HoursPerMonth (730) × (1 − the platform's fee, the
// market's, given as Deps.FeeBps): computed in integers with utilisation
// in parts per million, rounded down once to the micro-USDC. No float
// holds money: the curve takes price ratios, which are divided in
// integers first.
//
// No market. A model with no comparable offer anywhere starts from its
// reference performance (the geometric mean of its FP16 tensor TFLOPS and
// memory bandwidth, from the catalogue): every other model's median
// scaled by the two models' performance, and the lower middle of those;
// with no model priced at all, ReferenceRate for ReferenceModel, scaled.
// It says so (NO_MARKET) and the band is ±10 % around it.
//
// The explanation is a list of reason codes with their numbers
// (ReasonCode): the SPA words them in each language.
package pricing
