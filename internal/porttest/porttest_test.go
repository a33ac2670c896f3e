package porttest

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// The ports Free gives are free and below the ephemeral range, so no
// outgoing connection takes one while its server restarts.
func TestFreePortIsFreeAndBelowTheEphemeralRange(t *testing.T) {
	t.Parallel()
	low := ephemeralLow()
	for range 20 {
		port, err := Free()
		require.NoError(t, err)
		if low-minPort >= 1000 {
			require.GreaterOrEqual(t, port, minPort)
			require.Less(t, port, low, "below the ephemeral range %d…", low)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		require.NoError(t, err, "port %d is free", port)
		require.NoError(t, l.Close())
	}
}
