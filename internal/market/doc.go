// Package market is the marketplace and rentals.
//
// # What is listed
//
// A listing is N free GPUs of one model on one machine. A GPU qualifies
// when its provider is approved (has a providers row), its machine is
// ONLINE, its latest benchmark listed it (gpu_bench_status.listing =
// LISTED), its provider's schedule is open now (provider_schedules
// open_from <= now < open_until, open_until NULL meaning no end; a
// provider without a row counts as open), no maintenance window of the
// machine or of all the provider's machines is under way, its provider has
// priced the model (gpu_prices) and no rental holds it (no gpu_allocations
// row). The listing's performance score is the lowest of its GPUs'.
// Outside the demo world (fleet.Config.AllowSimulated unset) a machine
// with a simulated GPU is never listed, so never rented nor billed.
//
// Location and commitment come from the provider's approved application:
// the location of its first GPU entry (the application asks one per entry;
// machines are not tied to entries, so the first stands for the provider)
// and its commitment period. They are materialised per provider in
// provider_market_profiles, at first need (a new provider) and by the
// periodic refresh, so a marketplace page is at most three statements
// whatever its size: a look at the newest provider's id (is there one
// this replica has not made a profile for?), the new providers' profiles
// (only then), and the page itself; then what the listings say
// about their machines (below), one statement more, and two when a
// provider on the page has a reliability score.
//
// # What a listing says (issue 26)
//
// A listing separates what the platform measured from what the provider's
// agent claims. Measured: the GPUs' TFLOPS (the lowest median of the free
// GPUs' latest benchmarks, tensor BF16, else FP16, else FP32) against the
// model's datasheet and per USDC of the hourly rate, and the machine's
// network up/down and disk read/write from its latest completed benchmark
// run. Claimed: the driver and CUDA versions, and the host's CPU model,
// logical CPUs, RAM and disk size, that the agent reports at registration
// (protocol.HostFacts), read from the machine the page's statement
// already joins, so no statement more. The performance score is a health
// check relative to the model (the benchmark caps each ratio at what a
// healthy GPU of the model reaches), so it is 100 on every healthy machine
// of every model; the measured TFLOPS tell machines and models apart. The listing also carries the
// provider's name, when its schedule closes (open_until) and the parts of
// its reliability score (reliability's ComponentsOf, SetReliability).
// A machine whose agent predates issue 26 lists no CPU, RAM or disk (the
// fields are null) until its agent is upgraded; the platform measures none
// of them, so they stay the provider's word.
//
// A filter's country is an ISO 3166-1 alpha-2 code (never a name or a
// part of one); a bad filter is a *fault.Validation naming each field,
// which the API answers as the connection's userErrors with no listings.
//
// # Ranking
//
// RANK orders by (see Rank; the same formula runs in SQL, rankSQL):
//
//	rank = 0.35 · min(median / price, 2) / 2
//	     + 0.25 · performance / 100
//	     + 0.20 · reliability / 100   (94, the score's prior, until scored)
//	     + 0.05 · uptime
//	     + 0.10 · (1 if the provider is Enterprise, else 0)
//	     + 0.05 · min(commitment months, 12) / 12
//
// median is the model's median rate over every provider's price (a rate at
// the median scores half the price weight, half the median or less all of
// it); uptime is the machine's share of time online over the last 30
// days, or over its life when younger, from machine_status_intervals.
// Medians and uptime are computed by the leading replica every
// Config.RefreshEvery (Tick), never per request, and stored in
// model_market_prices and machine_market_stats. PRICE orders cheapest
// first; PERFORMANCE_PER_DOLLAR by measured TFLOPS per USDC of the
// hourly rate: the lowest headline figure among the listing's GPUs
// (gpu_bench_status.tflops, written by bench with each result:
// models.HeadlineFigure), the figure the listing shows. Ties break by machine id, then model key, which makes the
// keyset cursors (the sort's value and the listing's key) exact.
// reliability is the provider's score (internal/reliability), kept current
// in reliability_providers by that package's leader job; minReliability
// keeps listings of providers scoring at least that, leaving out those not
// scored yet. The scheduler (startRental by model) tries machines in RANK
// order, so a more reliable provider is preferred for new rentals.
//
// # Rentals
//
// startRental takes a listing, or a model (with a filter) for which the
// scheduler tries the best-ranked machines with enough free GPUs. In one
// transaction it stores the rental (price, location and tier locked),
// rental_gpus (kept forever) and one gpu_allocations row per GPU, whose
// primary key is the GPU: a second rental of a GPU is a unique violation
// on either database, and the loser retries another choice or gets the
// UNAVAILABLE user error. A machine with maintenance ahead takes only a
// rental whose endBy is at or before the maintenance; the job's timeout
// then ends it. START_JOB goes to the agent through the fleet's command
// queue.
//
// A rental's states:
//
//	STARTING ──RUNNING report──▶ RUNNING ──COMPLETED report──▶ COMPLETED
//	    │                          │      ──FAILED report────▶ FAILED (cause)
//	    │                          │
//	    ├──stopRental──▶ STOPPING ─┴─any final report, or StopGrace──▶ STOPPED
//	    │
//	    └──machine offline (after the fleet's grace)──▶ INTERRUPTED (PROVIDER)
//
// A job the agent cannot start ends FAILED with the agent's cause (image
// pull: CUSTOMER; GPU busy: PROVIDER). Ending frees the GPUs (the
// allocations go; rental_gpus stays) and records when and why: the facts
// reliability reads. A report on a rental that is stopping or has ended is
// answered stop: true. A machine's going offline reaches the market through
// fleet.OnTransition; each Tick also ends rentals left active on offline
// machines and stops the agent never confirmed.
//
// # Live
//
// Every change is published on user.<id>.rentals and
// provider.<id>.rentals with the rental's id; bus.Shared loads it once per
// replica for every subscriber (rentalUpdated, providerRentalUpdated),
// after sending each subscriber its current state.
package market
