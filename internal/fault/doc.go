// Package fault defines the coded errors that domain services return and
// that the API presents exactly once: a top-level GraphQL error with
// extensions.code (Code, Error), or userErrors on a mutation payload for
// validation (Validation, Problem, ProblemCode).
//
// # One user error
//
// Problem is the server's user error. gqlgen binds the schema's UserError
// to it and UserErrorCode to ProblemCode, so a code is typed from the
// service that finds the problem to the response, and every payload the
// server builds holds []*Problem.
//
// The agent does not link the server, so agent/protocol keeps its own
// UserError, the wire's copy with the code as a plain string, for the
// agent to decode answers into. The server meets it only where the agent's
// payloads are agent/protocol's types (HeartbeatPayload, answered on the
// prepared path without gqlgen, and ReportJobStatusPayload): there the
// resolvers write the problems into the wire's form, and gqlgen reads
// those payloads' userErrors field back as Problem, both conversions in
// one place (resolvers/payload.go). No other server code uses
// protocol.UserError.
package fault
