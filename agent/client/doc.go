// Package client is the agent's side of the server conversation: it
// registers the machine with the registerMachine mutation, then sends a
// heartbeat mutation at the interval the server asks for, and hands the
// commands that come back in each answer to the agent.
//
// # Fixed operations
//
// The two operation texts are package protocol's constants
// ([protocol.RegisterMachineMutation], [protocol.HeartbeatMutation]), so
// the server can prepare them without linking the agent; everything that
// changes travels in variables. The server (and any cache or
// persisted-query layer in front of it) always sees the same two
// documents.
//
// # Nothing is lost
//
// A heartbeat that cannot be delivered (network error, 5xx, RATE_LIMITED,
// the request's timeout) is appended to a buffer in the data directory,
// heartbeats.jsonl: one JSON heartbeat input per line, fsync'd, at most
// [DefaultBufferLimit] entries (the oldest are dropped beyond that). While
// the buffer holds anything, new heartbeats join its end, so order is kept;
// once the server answers again the buffer is replayed oldest first, each
// heartbeat with the `at` it was sampled at, then removed. The position of
// the oldest undelivered entry is kept in heartbeats.offset, so an agent
// that restarts replays exactly what its predecessor could not deliver
// (delivery is at least once: a crash between an answer and the offset
// write repeats one heartbeat).
//
// A heartbeat the server refuses for its content (userErrors, a GraphQL
// validation error) is logged and dropped: sending it again would be
// refused again and would block every later one.
//
// # Failures and backoff
//
// Registration is retried until it works; a failed delivery waits before
// the next try. Both wait with exponential backoff and full jitter
// ([Backoff]: a random delay up to base·2ⁿ, capped), or longer when the
// server says Retry-After. Heartbeats keep being sampled at the interval
// while the server is away, so the buffer is a complete record.
//
// Two answers end [Client.Run] with an error instead: UNAUTHENTICATED (the
// token was revoked or never existed: [ErrUnauthenticated], whose message
// says to create a new token) and FORBIDDEN (for example the machine id
// belongs to another provider). A heartbeat answered NOT_FOUND (the server
// no longer knows the machine) makes the client register again, and so
// does a change in the set of GPUs the detector reports (a board fell off
// the bus or came back), so the server records the new inventory.
//
// # Commands
//
// Each heartbeat answer may carry commands. SET_INTERVAL ({"seconds": N})
// is applied by the client; START_JOB, STOP_JOB and RUN_BENCHMARK go to the
// caller's [Handler], one at a time and in order, on a goroutine of their
// own so a slow image pull never delays a heartbeat. A command id already
// handled is not handled again.
//
// # Stopping
//
// When Run's context ends (SIGTERM), the client sends one last heartbeat
// with goingOffline set, within [DefaultOfflineTimeout], so the dashboard
// shows a planned stop rather than a lost machine; if it cannot be
// delivered it is buffered like any other.
//
// # The token
//
// The token is sent only in the Authorization header. It is never logged,
// never written to the buffer, and removed from any server message before
// that message is logged or returned.
package client
