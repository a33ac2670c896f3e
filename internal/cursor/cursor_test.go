package cursor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/cursor"
)

func TestCursorsRoundTripAndRefuseOtherLists(t *testing.T) {
	t.Parallel()
	c := cursor.Encode("notification", 42)
	id, ok := cursor.Decode("notification", c)
	require.True(t, ok)
	require.EqualValues(t, 42, id)
	_, ok = cursor.Decode("application", c)
	require.False(t, ok, "a cursor of another list")
	for _, bad := range []string{"", "!!!", cursor.Encode("notification", 0), "bm90aWZpY2F0aW9uOng"} {
		_, ok = cursor.Decode("notification", bad)
		require.False(t, ok, bad)
	}
}
