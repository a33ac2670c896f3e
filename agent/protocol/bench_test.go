package protocol_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
)

func TestClipBenchErrorKeepsWhatTheServerTakes(t *testing.T) {
	t.Parallel()
	limit := protocol.MaxBenchErrorRunes
	for _, tc := range []struct {
		desc string
		in   string
		want string
	}{
		{"a short text is kept", "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_LAUNCH_FAILED"},
		{"a text of exactly the limit is kept", strings.Repeat("a", limit), strings.Repeat("a", limit)},
		{"one rune over is cut with an ellipsis", strings.Repeat("a", limit+1), strings.Repeat("a", limit-1) + "…"},
		{"multi-byte runes count as one and are never split", strings.Repeat("é", limit+50), strings.Repeat("é", limit-1) + "…"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			got := protocol.ClipBenchError(tc.in)
			require.Equal(t, tc.want, got)
			require.True(t, utf8.ValidString(got))
			require.LessOrEqual(t, utf8.RuneCountInString(got), limit)
		})
	}
}
