package protocol_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
)

func TestValidMachineIDTakesEightToSixtyFourCharactersOfTheIdentifierAlphabet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc string
		id   string
		want bool
	}{
		{"a generated id (32 hex digits)", "0f3a9c1b2d4e5f60718293a4b5c6d7e8", true},
		{"letters, digits, dash and underscore", "rack-01_GPU", true},
		{"eight characters", "abcdefgh", true},
		{"sixty-four characters", strings.Repeat("a", 64), true},
		{"seven characters", "abcdefg", false},
		{"sixty-five characters", strings.Repeat("a", 65), false},
		{"empty", "", false},
		{"a space", "rack 0001", false},
		{"a dot", "rack.0001", false},
		{"a non-ASCII letter", "máquina-01", false},
		{"a newline", "rack-0001\n", false},
	} {
		require.Equal(t, tc.want, protocol.ValidMachineID(tc.id), tc.desc)
	}
}
