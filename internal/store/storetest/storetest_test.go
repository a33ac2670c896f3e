package storetest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store/storetest"
)

// A PostgreSQL test database cloned from the migrated template has every
// migration applied, and two clones share no row: a test's writes never
// reach another's database.
func TestAClonedDatabaseIsMigratedAndItsOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := storetest.Open(t, "postgres"), storetest.Open(t, "postgres")
	status, err := a.MigrationStatus(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, status)
	for _, m := range status {
		require.True(t, m.Applied, "migration %s is not applied in the clone", m.Name)
	}
	applied, err := a.MigrateUp(ctx)
	require.NoError(t, err)
	require.Empty(t, applied, "nothing is left to migrate")

	_, err = a.ExecContext(ctx, "CREATE TABLE only_in_a (x int)")
	require.NoError(t, err)
	var n int
	require.NoError(t, b.QueryRowContext(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n))
	require.Zero(t, n, "a table made in one clone shows in another")
	require.NoError(t, a.QueryRowContext(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n))
	require.Equal(t, 1, n)
}
