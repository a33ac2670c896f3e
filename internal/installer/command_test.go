package installer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/installer"
)

func TestCommandFetchesTheScriptAndRunsItAsRootWithTheToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, serverURL, token, want string
	}{
		{"a token", "https://gpunex.example", "gpx_a_secret",
			"curl -fsSL https://gpunex.example/agent/install.sh | sudo GPUNEX_TOKEN=gpx_a_secret sh"},
		{"a trailing slash is dropped", "https://gpunex.example/", "gpx_a_secret",
			"curl -fsSL https://gpunex.example/agent/install.sh | sudo GPUNEX_TOKEN=gpx_a_secret sh"},
		{"no token yet: a placeholder", "http://127.0.0.1:8080", "",
			"curl -fsSL http://127.0.0.1:8080/agent/install.sh | sudo GPUNEX_TOKEN=<your agent token> sh"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, installer.Command(tc.serverURL, tc.token))
		})
	}
}
