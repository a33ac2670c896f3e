// Package frontend embeds the built single-page application (frontend/dist),
// and GraphiQL built beside it (frontend/dist/graphiql), into the gpunex
// binary.
package frontend

import "embed"

// Dist holds the files of the built SPA, and GraphiQL's under graphiql/
// (served at /graphiql when introspection is on). When the SPA has not been built it
// holds only .gitkeep, and the server answers with a hint to run make build.
//
//go:embed all:dist
var Dist embed.FS
