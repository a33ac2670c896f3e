package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun/migrate"
)

// RollbackLastMigration undoes the latest applied migration alone and
// returns its name, or "" when none is applied. MigrateUp applies every
// pending migration as one group and MigrateDown undoes a whole group; the
// schema test walks down one version at a time, to compare the two
// backends at every version.
func (db *DB) RollbackLastMigration(ctx context.Context) (string, error) {
	var name string
	err := db.withLock(ctx, func(m *migrate.Migrator) error {
		ms, err := m.MigrationsWithStatus(ctx)
		if err != nil {
			return fmt.Errorf("store: migrate status: %w", err)
		}
		applied := ms.Applied() // newest first
		if len(applied) == 0 {
			return nil
		}
		last := applied[0]
		name = fullName(last)
		if last.Down != nil {
			if err := last.Down(ctx, m, &last); err != nil {
				return fmt.Errorf("store: %s: down: %w", name, err)
			}
		}
		return m.MarkUnapplied(ctx, &last)
	})
	return name, err
}
