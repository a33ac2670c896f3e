package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// Issue 25, item 1: the SQLite and PostgreSQL migration trees are kept by
// hand, so these tests migrate a database of each and compare what they
// hold: tables; columns (type family, nullability, default, generated
// keys); primary keys; indexes with their keys, uniqueness and partial
// predicate; unique constraints; checks; foreign keys; views and
// triggers. Every difference is named, not just the first.

// allowedDifference is a difference between the trees that is intended,
// because the two dialects cannot say the same thing. It matches one
// difference exactly, both sides' descriptions included, so a later change
// to either side fails the test again.
type allowedDifference struct {
	schemaDifference
	why string
}

// allowedDifferences is kept short: anything else that differs is a bug
// in one tree, mended by a migration in both. It is empty today. The
// spellings the dialects need (INTEGER for BIGINT, AUTOINCREMENT for an
// identity, TIMESTAMP for TIMESTAMPTZ, REAL for DOUBLE PRECISION, and how
// PostgreSQL writes expressions back) are not differences: the model
// compares type families, generated keys and normalised expressions.
// What no catalogue shows is not compared either: the same text can mean
// something else, as lower() in agent_tokens_provider_name_key, which
// folds ASCII only on SQLite (its migration says so).
var allowedDifferences = []allowedDifference{}

// schemaDifference is one item the two schemas disagree on.
type schemaDifference struct {
	item                 schemaItem
	sqlite, postgres     string
	inSQLite, inPostgres bool
}

func (d schemaDifference) String() string {
	switch {
	case !d.inPostgres:
		return fmt.Sprintf("%s: only in sqlite%s", d.item, parenthesised(d.sqlite))
	case !d.inSQLite:
		return fmt.Sprintf("%s: only in postgres%s", d.item, parenthesised(d.postgres))
	}
	return fmt.Sprintf("%s: sqlite says %s, postgres says %s", d.item, d.sqlite, d.postgres)
}

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// compareSchemas lists every difference between the two schemas, in a
// stable order. A table only one side has is one difference, not one per
// column.
func compareSchemas(sqlite, postgres schema) []schemaDifference {
	tableOnlyOnOneSide := func(table string) bool {
		_, a := sqlite[schemaItem{kind: kindTable, table: table}]
		_, b := postgres[schemaItem{kind: kindTable, table: table}]
		return a != b
	}
	items := map[schemaItem]bool{}
	for it := range sqlite {
		items[it] = true
	}
	for it := range postgres {
		items[it] = true
	}
	var diffs []schemaDifference
	for it := range items {
		if it.kind != kindTable && it.kind != kindView && tableOnlyOnOneSide(it.table) {
			continue
		}
		s, inS := sqlite[it]
		p, inP := postgres[it]
		if inS == inP && s == p {
			continue
		}
		diffs = append(diffs, schemaDifference{item: it, sqlite: s, postgres: p, inSQLite: inS, inPostgres: inP})
	}
	slices.SortFunc(diffs, func(a, b schemaDifference) int { return strings.Compare(a.item.String(), b.item.String()) })
	return diffs
}

// unexpected drops the allowed differences, marking which were seen.
func unexpected(diffs []schemaDifference, seen map[int]bool) []string {
	var out []string
	for _, d := range diffs {
		i := slices.IndexFunc(allowedDifferences, func(a allowedDifference) bool { return a.schemaDifference == d })
		if i >= 0 {
			seen[i] = true
			continue
		}
		out = append(out, d.String())
	}
	return out
}

// schemaPair is a fresh database of each backend, not yet migrated.
type schemaPair struct {
	sqlite, postgres *store.DB
}

func openSchemaPair(t *testing.T) schemaPair {
	t.Helper()
	ctx := context.Background()
	open := func(backend string) *store.DB {
		db, err := store.Open(ctx, storetest.Config(t, backend))
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	pg := open("postgres") // skips without a PostgreSQL server
	return schemaPair{sqlite: open("sqlite"), postgres: pg}
}

func (p schemaPair) migrateUp(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	a, err := p.sqlite.MigrateUp(ctx)
	require.NoError(t, err)
	b, err := p.postgres.MigrateUp(ctx)
	require.NoError(t, err)
	require.Equal(t, a, b, "the two trees hold the same migrations")
}

// differences reads both schemas and returns what differs beyond the
// allow-list.
func (p schemaPair) differences(t *testing.T, seen map[int]bool) []string {
	t.Helper()
	ctx := context.Background()
	s, err := readSQLiteSchema(ctx, p.sqlite)
	require.NoError(t, err)
	pg, err := readPostgresSchema(ctx, p.postgres)
	require.NoError(t, err)
	return unexpected(compareSchemas(s, pg), seen)
}

func TestSchemasAgreeWhenMigratedUp(t *testing.T) {
	t.Parallel()
	p := openSchemaPair(t)
	p.migrateUp(t)
	if diffs := p.differences(t, map[int]bool{}); len(diffs) > 0 {
		t.Errorf("the sqlite and postgres schemas differ in %d ways:\n  %s", len(diffs), strings.Join(diffs, "\n  "))
	}
}

func TestSchemasAgreeAtEveryVersionDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := openSchemaPair(t)
	p.migrateUp(t)

	// Each difference is reported once, with the versions it is seen at,
	// even when a down migration fails part-way.
	seen := map[int]bool{}
	var found []string
	seenAt := map[string][]string{}
	defer func() {
		if len(found) == 0 {
			return
		}
		lines := make([]string, 0, len(found))
		for _, d := range found {
			at := seenAt[d]
			where := at[0]
			if len(at) > 1 {
				where = fmt.Sprintf("%d versions, %s to %s", len(at), at[0], at[len(at)-1])
			}
			lines = append(lines, fmt.Sprintf("%s\n      (%s)", d, where))
		}
		t.Errorf("the sqlite and postgres schemas differ on the way down, in %d ways:\n  %s", len(found), strings.Join(lines, "\n  "))
	}()
	at := "fully migrated up"
	for {
		for _, d := range p.differences(t, seen) {
			if seenAt[d] == nil {
				found = append(found, d)
			}
			seenAt[d] = append(seenAt[d], at)
		}
		a, err := p.sqlite.RollbackLastMigration(ctx)
		require.NoError(t, err, "sqlite, %s", at)
		b, err := p.postgres.RollbackLastMigration(ctx)
		require.NoError(t, err, "postgres, %s", at)
		require.Equal(t, a, b, "both roll back the same migration")
		if a == "" {
			break
		}
		at = "after rolling back " + a
	}

	s, err := readSQLiteSchema(ctx, p.sqlite)
	require.NoError(t, err)
	require.Empty(t, s, "sqlite holds no application schema once every migration is down")
	pg, err := readPostgresSchema(ctx, p.postgres)
	require.NoError(t, err)
	require.Empty(t, pg, "postgres holds no application schema once every migration is down")
	requireNoLeftovers(t, p)

	for i, a := range allowedDifferences {
		require.True(t, seen[i], "allowed difference %q (%s) is no longer seen at any version: remove it", a.schemaDifference, a.why)
	}
}

// requireNoLeftovers checks what the schema model does not cover once
// every migration is down: SQLite objects of any type, and PostgreSQL
// relations, types and functions in the test's schema, beyond bun's
// bookkeeping.
func requireNoLeftovers(t *testing.T, p schemaPair) {
	t.Helper()
	ctx := context.Background()
	var left []string
	collect := func(db *store.DB, q string) {
		require.NoError(t, query(ctx, db, q, func(r *sql.Rows) error {
			var s string
			err := r.Scan(&s)
			left = append(left, db.Backend()+": "+s)
			return err
		}))
	}
	collect(p.sqlite, `SELECT type || ' ' || name FROM sqlite_master
WHERE name NOT LIKE 'sqlite\_%' ESCAPE '\' AND tbl_name NOT IN ('bun_migrations', 'bun_migration_locks')`)
	collect(p.postgres, `SELECT 'relation ' || relname FROM pg_class
WHERE relnamespace = current_schema()::regnamespace AND relname NOT LIKE 'bun\_migration%'`)
	collect(p.postgres, `SELECT 'type ' || typname FROM pg_type
WHERE typnamespace = current_schema()::regnamespace AND typtype IN ('d', 'e', 'm', 'r')`)
	collect(p.postgres, `SELECT 'function ' || proname FROM pg_proc WHERE pronamespace = current_schema()::regnamespace`)
	require.Empty(t, left, "left behind once every migration is down")
}

func TestSchemaExpressionsNormaliseAcrossDialects(t *testing.T) {
	t.Parallel()
	// Each case pairs an expression as a SQLite migration writes it with
	// the text PostgreSQL's catalogue gives back.
	for _, tc := range []struct {
		desc             string
		sqlite, postgres string
		same             bool
	}{
		{"IN is = ANY (ARRAY[...]) with casts", `role IN ('CUSTOMER', 'PROVIDER', 'ADMIN')`,
			`(role = ANY (ARRAY['CUSTOMER'::text, 'PROVIDER'::text, 'ADMIN'::text]))`, true},
		{"NOT IN is <> ALL (ARRAY[...])", `kind NOT IN ('A', 'B')`, `(kind <> ALL (ARRAY['A'::text, 'B'::text]))`, true},
		{"IN of one value is =", `kind IN ('DEPOSIT')`, `(kind = 'DEPOSIT'::text)`, true},
		{"BETWEEN is two comparisons", `quantity BETWEEN 1 AND 10000`, `((quantity >= 1) AND (quantity <= 10000))`, true},
		{"BETWEEN of a function call", `length(name) BETWEEN 1 AND 64`, `((length(name) >= 1) AND (length(name) <= 64))`, true},
		{"a constant cast to the column's type", `upload_gbps > 0`, `(upload_gbps > (0)::double precision)`, true},
		{"!= is <>", `a != b`, `(a <> b)`, true},
		{"quotes and case of names", `"Status" IS NOT NULL`, `(status IS NOT NULL)`, true},
		{"comments", `x > 0 -- positive`, `(x > 0)`, true},
		{"another value in the list", `role IN ('A', 'B')`, `(role = ANY (ARRAY['A'::text, 'C'::text]))`, false},
		{"another bound", `score BETWEEN 0 AND 100`, `((score >= 0) AND (score <= 101))`, false},
		{"the case of a string", `kind = 'deposit'`, `(kind = 'DEPOSIT'::text)`, false},
		{"another column", `balance_micros >= 0`, `(amount_micros >= 0)`, false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			a, b := normExpr(lex(tc.sqlite)), normExpr(lex(tc.postgres))
			if tc.same {
				require.Equal(t, a, b)
			} else {
				require.NotEqual(t, a, b)
			}
		})
	}

	t.Run("defaults", func(t *testing.T) {
		for _, tc := range []struct{ family, sqlite, postgres string }{
			{"boolean", "0", "false"},
			{"boolean", "TRUE", "true"},
			{"text", "'{}'", "'{}'::text"},
			{"timestamp", "CURRENT_TIMESTAMP", "now()"},
			{"text", "NULL", ""},
		} {
			require.Equal(t, normDefault(tc.family, tc.sqlite), normDefault(tc.family, tc.postgres), "%s %s", tc.family, tc.sqlite)
		}
		require.NotEqual(t, normDefault("text", "'en'"), normDefault("text", "'es'::text"))
	})

	t.Run("indexes", func(t *testing.T) {
		sk, sw := parseCreateIndex(`CREATE UNIQUE INDEX k ON agent_tokens (provider_id, lower(name)) WHERE revoked_at IS NULL`)
		pk, pw := parseCreateIndex(`CREATE UNIQUE INDEX k ON t_0123.agent_tokens USING btree (provider_id, lower(name)) WHERE (revoked_at IS NULL)`)
		require.Equal(t, []string{"provider_id", "lower name"}, sk)
		require.Equal(t, sk, pk)
		require.Equal(t, "revoked_at is null", sw)
		require.Equal(t, sw, pw)
		k, _ := parseCreateIndex(`CREATE INDEX e ON reliability_events (machine_id ASC, weight_key DESC)`)
		require.Equal(t, []string{"machine_id", "weight_key desc"}, k)
	})

	t.Run("a CREATE TABLE's checks and AUTOINCREMENT", func(t *testing.T) {
		def := parseCreateTable(`CREATE TABLE "x" (
    id    INTEGER PRIMARY KEY AUTOINCREMENT, -- the key, check (not this)
    kind  TEXT NOT NULL CHECK (kind IN ('a', 'b')),
    n     INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT n_positive CHECK (n >= 0 OR kind = 'a')
)`)
		require.Equal(t, []string{"kind in 'a' , 'b'", "n >= 0 or kind = 'a'"}, def.checks)
		require.Equal(t, map[string]bool{"id": true}, def.autoincrement)
	})
}

func TestSchemaComparisonNamesEveryDifference(t *testing.T) {
	t.Parallel()
	sqlite := schema{
		{kind: kindTable, table: "users"}:                                         "",
		{kind: kindColumn, table: "users", name: "id"}:                            "integer NOT NULL IDENTITY",
		{kind: kindColumn, table: "users", name: "language"}:                      "text NOT NULL DEFAULT 'en'",
		{kind: kindCheck, table: "users", name: "language in 'en' , 'es' , 'pt'"}: "",
		{kind: kindTable, table: "legacy"}:                                        "",
		{kind: kindColumn, table: "legacy", name: "id"}:                           "integer NOT NULL",
	}
	postgres := schema{
		{kind: kindTable, table: "users"}:                                     "",
		{kind: kindColumn, table: "users", name: "id"}:                        "integer NOT NULL IDENTITY",
		{kind: kindColumn, table: "users", name: "language"}:                  "text NULL",
		{kind: kindCheck, table: "users", name: "language in 'en' , 'es'"}:    "",
		{kind: kindIndex, table: "users", name: "users_language_idx"}:         "(language)",
		{kind: kindForeignKey, table: "users", name: "referrer_id"}:           "REFERENCES users(id) ON DELETE SET NULL",
		{kind: kindUnique, table: "users", name: "language, id"}:              "",
		{kind: kindPrimaryKey, table: "users"}:                                "id",
		{kind: kindColumn, table: "users", name: "referrer_id"}:               "integer NULL",
		{kind: kindTrigger, table: "users", name: "users_touch"}:              "",
		{kind: kindView, table: "active_users"}:                               "",
		{kind: kindCheck, table: "users", name: "length language = 2"}:        "",
		{kind: kindCheck, table: "users", name: "language <> ''"}:             "2 times",
		{kind: kindIndex, table: "users", name: "users_language_partial_idx"}: "(language) WHERE language is not null",
	}
	var got []string
	for _, d := range compareSchemas(sqlite, postgres) {
		got = append(got, d.String())
	}
	require.Equal(t, []string{
		"check on users: language <> '': only in postgres (2 times)",
		"check on users: language in 'en' , 'es': only in postgres",
		"check on users: language in 'en' , 'es' , 'pt': only in sqlite",
		"check on users: length language = 2: only in postgres",
		"column users.language: sqlite says text NOT NULL DEFAULT 'en', postgres says text NULL",
		"column users.referrer_id: only in postgres (integer NULL)",
		"foreign key users(referrer_id): only in postgres (REFERENCES users(id) ON DELETE SET NULL)",
		"index users_language_idx on users: only in postgres ((language))",
		"index users_language_partial_idx on users: only in postgres ((language) WHERE language is not null)",
		"primary key of users: only in postgres (id)",
		"table legacy: only in sqlite",
		"trigger users_touch on users: only in postgres",
		"unique constraint users(language, id): only in postgres",
		"view active_users: only in postgres",
	}, got, "every difference, once, and a table only one side has is one line")
}

func TestSchemaCountsAChecksRepeats(t *testing.T) {
	t.Parallel()
	s := schema{}
	for range 3 {
		s.addCheck("users", "n > 0")
	}
	s.addCheck("users", "n < 9")
	require.Equal(t, schema{
		{kind: kindCheck, table: "users", name: "n > 0"}: "3 times",
		{kind: kindCheck, table: "users", name: "n < 9"}: "",
	}, s)
}
