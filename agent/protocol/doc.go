// Package protocol is the one definition of what crosses the boundary
// between gpunex-agent and the platform: the GraphQL documents the agent
// sends (verbatim: everything that changes travels in variables) and the
// Go types of their variables and answers.
//
// Both sides use these types: the agent encodes them; gqlgen binds the
// schema's agent inputs and payloads to them (gqlgen.yml), so the server
// decodes into them and its resolvers return them. The package imports
// nothing but the standard library, so the agent never links the server
// and the server links only this of the agent. A change here is a change
// to both sides; the schema (schema/fleet.graphqls) must agree, which
// gqlgen checks when it binds.
package protocol
