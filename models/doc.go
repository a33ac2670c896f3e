// Package models holds the bun models (one struct per table) and the Go
// types the GraphQL schema binds to through gqlgen's autobind.
//
// Models carry data only. Rules about them live in the domain packages under
// internal/, which load and store these structs through bun.
package models
