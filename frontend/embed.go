// Package frontend embeds the built single-page application (frontend/dist)
// into the gpunex binary.
package frontend

import "embed"

// Dist holds the files of the built SPA. When the SPA has not been built it
// holds only .gitkeep, and the server answers with a hint to run make build.
//
//go:embed all:dist
var Dist embed.FS
