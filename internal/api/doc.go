// Package api is GPUnex's HTTP surface: the GraphQL endpoint over HTTP
// (POST, and GET for queries) and WebSocket (graphql-transport-ws on
// gorilla/websocket), GraphiQL, health and readiness probes, Prometheus
// metrics, and the embedded SPA with history-API fallback.
//
// It wires gqlgen's handler.New with only the transports and extensions
// GPUnex wants: a parsed-query cache, automatic persisted queries,
// complexity and depth limits, introspection only when enabled, one error
// presenter that maps fault codes to extensions.code and hides internals,
// and a request body limit.
//
// Subscriptions (live.go): gqlgen's WebSocket transport keeps the
// connection's protocol; the gorilla adapter runs the operations. A
// subscription holds no goroutine (a bus.Tap sink queues its values on the
// socket), and an event is executed and encoded once per viewer and
// operation, the same bytes written to every socket that shares them.
//
// Identity: a bearer token (Authorization header, or connection_init on a
// WebSocket) or the SPA's HttpOnly session cookie. The cookie is honoured on
// HTTP only with the X-GPUnex-CSRF header, which a cross-site form or
// simple request cannot carry, and on a WebSocket only from an allowed
// Origin; so cross-site request forgery cannot drive a cookie-authenticated
// mutation.
package api
