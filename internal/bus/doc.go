// Package bus carries events between the parts of GPUnex that change state
// and the dashboards that watch it.
//
// A service publishes a small payload on a named channel (for example
// "provider.42.machines" after a machine of provider 42 went online) and every
// subscriber of that channel receives it: GraphQL subscription resolvers
// subscribe with the request's context and stop when the client goes away.
//
// Two implementations satisfy [Bus] and pass the same conformance suite in
// package bustest:
//
//   - [Memory] delivers within one process; it serves tests and single-replica
//     deployments.
//   - [Redis] delivers through Redis pub/sub so that every replica sees every
//     event. Each Redis bus holds exactly one pub/sub connection and
//     multiplexes all of its local subscriptions over it, subscribing a Redis
//     channel when the first local subscriber arrives and unsubscribing when
//     the last one leaves. When the connection drops it ends every
//     subscription early (what is published until it has subscribed again
//     is lost, and a consumer must know), reconnects, and releases the
//     channels nobody subscribed again.
//
// Delivery is at most once, and Publish never waits for a subscriber to
// read. Each subscription buffers up to 256 messages; a subscriber that
// falls further behind has its channel closed early. A consumer must therefore treat a closed channel
// while its context is still alive as "events were lost": it reloads the
// state it displays and subscribes again.
//
// Two helpers hold that discipline for the usual consumers: [Shared] is the
// plumbing of every GraphQL subscription (one bus subscription and one
// resolve per event per channel and replica, whatever the number of local
// followers; each follower gets its current state, then each change it may
// see, until the client goes away; an early close ends the stream and the
// client subscribes again), and [Listen] keeps a background consumer
// subscribed for as long as it runs, reloading after every gap. A [Tap]
// lets the WebSocket transport take a Shared follow without a channel or a
// goroutine (a sink), with each event numbered so it is encoded once for
// every subscriber that sees it the same way.
package bus
