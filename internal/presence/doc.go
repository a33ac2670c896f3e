// Package presence remembers which things are alive right now.
//
// Agents send heartbeats; each heartbeat calls [Store.Touch] with the
// machine id, its latest telemetry and a time to live a little longer than
// the heartbeat interval. A machine is present while its key lives. Touch
// reports the transition from absent to present so that the caller can
// publish "machine came online" exactly once, even when heartbeats race;
// the opposite transition is noticed by whoever finds the key gone.
//
// Touch runs on the heartbeat hot path, so each implementation keeps it to
// one step: [Memory] takes one lock, [Redis] makes one round trip.
// Expired keys are absent at once, whether or not the backend has reclaimed
// their memory yet.
//
// Both implementations pass the conformance suite in package presencetest.
package presence
