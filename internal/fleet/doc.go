// Package fleet tracks providers' machines and GPUs: registration by the
// agent, heartbeats, online/offline status and the live telemetry shown on
// dashboards.
//
// Heartbeats are the hot path. In steady state a heartbeat writes no SQL
// row: it refreshes the machine's presence key (a TTL of three intervals,
// in Redis or in memory) whose value is the latest telemetry, and at most
// once per machine per TelemetryEvery (5s by default; a sampler in each
// replica's memory) publishes that telemetry for the dashboards. SQL is
// written only on a transition — offline→online when a
// heartbeat finds no presence key, online→offline when the agent says it is
// stopping (planned) or when the sweeper finds the key expired (unplanned)
// — and by a compaction that advances the open uptime interval every ten
// minutes. Transitions are conditional updates, so replicas racing on one
// machine record and announce it once. The sweeper runs on one replica at a
// time (store.TryLead).
//
// A transition also keeps the machine's last heartbeat (last_heartbeat_at),
// so an offline machine still says when it was last heard from: the beat
// that brought it online, the agent's goodbye for a planned stop, and for
// an unplanned one the beat the sweeper read one sweep before the key
// expired (a key lives three intervals, a sweep comes every interval), or,
// when this sweeper did not see it, the latest it can have been. While a
// machine is online the presence store's beat is shown instead.
//
// A machine remembers the agent token it last registered with, for the
// provider's list of tokens.
//
// Each replica rate-limits in memory: heartbeats per machine, and per
// agent token whatever costs a query (registrations, and heartbeats naming
// a machine id the replica has not resolved yet, unknown ones included).
//
// Status transitions and telemetry samples are published on
// provider.<id>.machines; the machineStatusChanged subscription first
// sends every machine's current state, then each transition and each
// sample, every one the whole machine (its kind says which it is), so a
// dashboard replaces the machine it shows and polls nothing. Each event is
// resolved once per replica for all its dashboards: a transition loads the
// machine and its presence value, a sample loads the machine and shows
// the telemetry the event carries.
package fleet
