package models_test

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/models"
)

// An int64 ID is written as the spec's ID, a JSON string of its decimal,
// and read back as the same number.
func TestAnInt64IDIsWrittenAsAStringOfItsDecimal(t *testing.T) {
	t.Parallel()
	for _, id := range []int64{1, 42, 1_000_000_007, math.MaxInt64, 0, -7, math.MinInt64} {
		var b bytes.Buffer
		models.MarshalInt64ID(id).MarshalGQL(&b)
		require.Equal(t, strconv.Quote(strconv.FormatInt(id, 10)), b.String())
		if id > 0 {
			back, err := models.UnmarshalInt64ID(b.String()[1 : b.Len()-1])
			require.NoError(t, err)
			require.Equal(t, id, back)
		}
	}
}
