package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun/migrate"
)

// MigrationStatus is one migration and whether it is applied.
type MigrationStatus struct {
	Name    string
	Applied bool
	GroupID int64
}

func (db *DB) migrator() (*migrate.Migrator, error) {
	ms := migrate.NewMigrations()
	if err := ms.Discover(db.backend.migrations()); err != nil {
		return nil, fmt.Errorf("store: unable to read migrations: %w", err)
	}
	return migrate.NewMigrator(db.DB, ms, migrate.WithMarkAppliedOnSuccess(true)), nil
}

// withLock initialises the migration tables and runs fn under the
// migrator's lock. Replicas starting together wait for each other (up to
// the context's deadline, or a minute) instead of failing.
func (db *DB) withLock(ctx context.Context, fn func(m *migrate.Migrator) error) error {
	m, err := db.migrator()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		err = m.Init(ctx)
		if err == nil {
			err = m.Lock(ctx)
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("store: unable to take the migration lock: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	defer func() { _ = m.Unlock(context.WithoutCancel(ctx)) }()
	return fn(m)
}

// MigrateUp applies every pending migration and returns their names.
func (db *DB) MigrateUp(ctx context.Context) ([]string, error) {
	var names []string
	err := db.withLock(ctx, func(m *migrate.Migrator) error {
		group, err := m.Migrate(ctx)
		if err != nil {
			return fmt.Errorf("store: migrate up: %w", err)
		}
		for _, mg := range group.Migrations {
			names = append(names, fullName(mg))
		}
		return nil
	})
	return names, err
}

// MigrateDown rolls back the last applied group of migrations and returns
// their names.
func (db *DB) MigrateDown(ctx context.Context) ([]string, error) {
	var names []string
	err := db.withLock(ctx, func(m *migrate.Migrator) error {
		group, err := m.Rollback(ctx)
		if err != nil {
			return fmt.Errorf("store: migrate down: %w", err)
		}
		for _, mg := range group.Migrations {
			names = append(names, fullName(mg))
		}
		return nil
	})
	return names, err
}

// MigrationStatus lists every known migration with whether it is applied.
func (db *DB) MigrationStatus(ctx context.Context) ([]MigrationStatus, error) {
	m, err := db.migrator()
	if err != nil {
		return nil, err
	}
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("store: migrate status: %w", err)
	}
	ms, err := m.MigrationsWithStatus(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: migrate status: %w", err)
	}
	out := make([]MigrationStatus, 0, len(ms))
	for _, mg := range ms {
		out = append(out, MigrationStatus{Name: fullName(mg), Applied: mg.IsApplied(), GroupID: mg.GroupID})
	}
	return out, nil
}

// fullName is a migration's version and comment, as its file is named.
func fullName(m migrate.Migration) string {
	if m.Comment == "" {
		return m.Name
	}
	return m.Name + "_" + m.Comment
}
