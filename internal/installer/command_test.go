package installer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/installer"
)

func TestCommandFetchesTheScriptAndRunsItAsRootWithoutTheToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, serverURL, want string
	}{
		{"the script, run as root", "https://gpunex.example",
			"curl -fsSL https://gpunex.example/agent/install.sh | sudo sh"},
		{"a trailing slash is dropped", "http://127.0.0.1:8080/",
			"curl -fsSL http://127.0.0.1:8080/agent/install.sh | sudo sh"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			got := installer.Command(tc.serverURL)
			require.Equal(t, tc.want, got)
			require.NotContains(t, got, "GPUNEX_TOKEN", "the token is never on the command line")
		})
	}
}

func TestTokenFileCommandNamesTheFileNotTheToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, path, want string
	}{
		{"the default file", installer.DefaultTokenFile,
			"curl -fsSL https://gpunex.example/agent/install.sh | sudo sh -s -- --token-file /root/gpunex-token"},
		{"a path with a space is quoted", "/root/my token",
			"curl -fsSL https://gpunex.example/agent/install.sh | sudo sh -s -- --token-file '/root/my token'"},
		{"a path with a quote is quoted", "/root/it's",
			`curl -fsSL https://gpunex.example/agent/install.sh | sudo sh -s -- --token-file '/root/it'\''s'`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, installer.TokenFileCommand("https://gpunex.example/", tc.path))
		})
	}
}
