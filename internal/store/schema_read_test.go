package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpunex/gpunex/internal/store"
)

// This file reads a migrated database's schema back into one model both
// dialects share, so the schema test can name every way the SQLite and
// PostgreSQL trees disagree. What each dialect says is normalised first:
// declared types become families, expressions lose quoting, casts and
// grouping parentheses (see normExpr), and names a dialect makes up itself
// (SQLite's autoindexes, PostgreSQL's constraint names) are replaced by
// what the thing covers.

// schemaItem names one thing a schema has: a table, a view, or a column,
// primary key, index, unique constraint, check, foreign key or trigger of
// a table.
type schemaItem struct {
	kind  string
	table string
	// name is the column's or index's name, the unique constraint's or
	// foreign key's columns, or the check's normalised expression.
	name string
}

const (
	kindTable      = "table"
	kindView       = "view"
	kindColumn     = "column"
	kindPrimaryKey = "primary key"
	kindIndex      = "index"
	kindUnique     = "unique constraint"
	kindCheck      = "check"
	kindForeignKey = "foreign key"
	kindTrigger    = "trigger"
)

func (i schemaItem) String() string {
	switch i.kind {
	case kindTable, kindView:
		return i.kind + " " + i.table
	case kindColumn:
		return "column " + i.table + "." + i.name
	case kindPrimaryKey:
		return "primary key of " + i.table
	case kindUnique, kindForeignKey:
		return i.kind + " " + i.table + "(" + i.name + ")"
	case kindCheck:
		return "check on " + i.table + ": " + i.name
	}
	return i.kind + " " + i.name + " on " + i.table
}

// schema is every item of a database with its normalised description.
type schema map[schemaItem]string

// bookkeepingTables are bun's migration tables: the same on both
// backends by construction, and still there when every migration is down.
var bookkeepingTables = []string{"bun_migrations", "bun_migration_locks"}

func isBookkeeping(table string) bool { return slices.Contains(bookkeepingTables, table) }

// describeColumn is a column's description: type family, nullability,
// default, and whether the database generates its values.
func describeColumn(family string, notNull bool, deflt string, identity bool) string {
	d := family
	if notNull {
		d += " NOT NULL"
	} else {
		d += " NULL"
	}
	if deflt != "" {
		d += " DEFAULT " + deflt
	}
	if identity {
		d += " IDENTITY"
	}
	return d
}

// describeIndex is an index's description: uniqueness, keys and partial
// predicate.
func describeIndex(unique bool, keys []string, where string) string {
	d := "(" + strings.Join(keys, ", ") + ")"
	if unique {
		d = "UNIQUE " + d
	}
	if where != "" {
		d += " WHERE " + where
	}
	return d
}

// describeForeignKey is a foreign key's description: what it references
// and its actions.
func describeForeignKey(refTable, refColumns, onDelete, onUpdate string) string {
	d := "REFERENCES " + refTable + "(" + refColumns + ") ON DELETE " + strings.ToUpper(onDelete)
	if onUpdate != "no action" {
		d += " ON UPDATE " + strings.ToUpper(onUpdate)
	}
	return d
}

// addCheck counts a check: a table may hold the same expression twice.
func (s schema) addCheck(table, expr string) {
	it := schemaItem{kind: kindCheck, table: table, name: expr}
	prev, ok := s[it]
	switch {
	case !ok:
		s[it] = ""
	case prev == "":
		s[it] = "2 times"
	default:
		n, _ := strconv.Atoi(strings.TrimSuffix(prev, " times"))
		s[it] = strconv.Itoa(n+1) + " times"
	}
}

// query runs a catalogue query and hands each row to scan.
func query(ctx context.Context, db *store.DB, q string, scan func(*sql.Rows) error, args ...any) error {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return rows.Err()
}

// --- SQLite ----------------------------------------------------------------

// readSQLiteSchema reads sqlite_master and the table pragmas. CHECK
// constraints and AUTOINCREMENT live only in the CREATE TABLE text SQLite
// keeps (ALTER TABLE rewrites it), so they are parsed from there.
func readSQLiteSchema(ctx context.Context, db *store.DB) (schema, error) {
	type object struct{ typ, name, table, sql string }
	var objects []object
	err := query(ctx, db, `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`,
		func(r *sql.Rows) error {
			var o object
			if err := r.Scan(&o.typ, &o.name, &o.table, &o.sql); err != nil {
				return err
			}
			objects = append(objects, o)
			return nil
		})
	if err != nil {
		return nil, err
	}
	indexSQL := map[string]string{}
	for _, o := range objects {
		if o.typ == "index" {
			indexSQL[o.name] = o.sql
		}
	}
	s := schema{}
	for _, o := range objects {
		if isBookkeeping(o.table) {
			continue
		}
		switch o.typ {
		case "view":
			s[schemaItem{kind: kindView, table: o.name}] = ""
		case "trigger":
			s[schemaItem{kind: kindTrigger, table: o.table, name: o.name}] = ""
		case "table":
			if err := readSQLiteTable(ctx, db, s, o.name, o.sql, indexSQL); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

func readSQLiteTable(ctx context.Context, db *store.DB, s schema, table, createSQL string, indexSQL map[string]string) error {
	s[schemaItem{kind: kindTable, table: table}] = ""
	def := parseCreateTable(createSQL)
	for _, c := range def.checks {
		s.addCheck(table, c)
	}

	type column struct {
		name, typ, deflt string
		notNull          bool
		pk               int
	}
	var cols []column
	err := query(ctx, db, `SELECT name, type, "notnull", coalesce(dflt_value, ''), pk FROM pragma_table_info(?) ORDER BY cid`,
		func(r *sql.Rows) error {
			var c column
			if err := r.Scan(&c.name, &c.typ, &c.notNull, &c.deflt, &c.pk); err != nil {
				return err
			}
			cols = append(cols, c)
			return nil
		}, table)
	if err != nil {
		return err
	}
	pk := map[int]string{}
	for _, c := range cols {
		if c.pk > 0 {
			pk[c.pk] = c.name
		}
	}
	for _, c := range cols {
		family := sqliteFamily(c.typ)
		notNull := c.notNull
		// A lone INTEGER PRIMARY KEY is the rowid: never NULL, whatever
		// was declared. Other primary key columns take NULL unless they
		// say NOT NULL (a SQLite quirk, which the comparison shows).
		if c.pk > 0 && len(pk) == 1 && strings.EqualFold(strings.TrimSpace(c.typ), "INTEGER") {
			notNull = true
		}
		s[schemaItem{kind: kindColumn, table: table, name: c.name}] =
			describeColumn(family, notNull, normDefault(family, c.deflt), def.autoincrement[c.name])
	}
	if len(pk) > 0 {
		names := make([]string, len(pk))
		for i := range names {
			names[i] = pk[i+1]
		}
		s[schemaItem{kind: kindPrimaryKey, table: table}] = strings.Join(names, ", ")
	}

	type index struct {
		name, origin string
		unique       bool
	}
	var indexes []index
	err = query(ctx, db, `SELECT name, "unique", origin FROM pragma_index_list(?)`,
		func(r *sql.Rows) error {
			var i index
			if err := r.Scan(&i.name, &i.unique, &i.origin); err != nil {
				return err
			}
			indexes = append(indexes, i)
			return nil
		}, table)
	if err != nil {
		return err
	}
	for _, i := range indexes {
		switch i.origin {
		case "pk": // the primary key, compared above
		case "u": // a UNIQUE constraint: SQLite names it itself
			var names []string
			err := query(ctx, db, `SELECT name FROM pragma_index_info(?) ORDER BY seqno`,
				func(r *sql.Rows) error {
					var n string
					if err := r.Scan(&n); err != nil {
						return err
					}
					names = append(names, n)
					return nil
				}, i.name)
			if err != nil {
				return err
			}
			s[schemaItem{kind: kindUnique, table: table, name: strings.Join(names, ", ")}] = ""
		default:
			keys, where := parseCreateIndex(indexSQL[i.name])
			s[schemaItem{kind: kindIndex, table: table, name: i.name}] = describeIndex(i.unique, keys, where)
		}
	}

	type fkColumn struct {
		id                         int
		ref, from, to, upd, delete string
	}
	var fks []fkColumn
	err = query(ctx, db, `SELECT id, "table", "from", coalesce("to", ''), on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`,
		func(r *sql.Rows) error {
			var f fkColumn
			if err := r.Scan(&f.id, &f.ref, &f.from, &f.to, &f.upd, &f.delete); err != nil {
				return err
			}
			fks = append(fks, f)
			return nil
		}, table)
	if err != nil {
		return err
	}
	for start := 0; start < len(fks); {
		end := start
		var from, to []string
		for end < len(fks) && fks[end].id == fks[start].id {
			from, to = append(from, fks[end].from), append(to, fks[end].to)
			end++
		}
		f := fks[start]
		if to[0] == "" { // REFERENCES t without columns: t's primary key
			to = nil
			err := query(ctx, db, `SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`,
				func(r *sql.Rows) error {
					var n string
					err := r.Scan(&n)
					to = append(to, n)
					return err
				}, f.ref)
			if err != nil {
				return err
			}
		}
		it := schemaItem{kind: kindForeignKey, table: table, name: strings.Join(from, ", ")}
		d := describeForeignKey(f.ref, strings.Join(to, ", "), strings.ToLower(f.delete), strings.ToLower(f.upd))
		if prev, ok := s[it]; ok {
			d = prev + "; " + d
		}
		s[it] = d
		start = end
	}
	return nil
}

// sqliteFamily maps a declared SQLite type to its family. SQLite stores
// whatever it is given; the declared type is what the tree says it means.
func sqliteFamily(declared string) string {
	d := strings.ToUpper(strings.TrimSpace(declared))
	if i := strings.IndexByte(d, '('); i >= 0 {
		d = strings.TrimSpace(d[:i])
	}
	switch d {
	case "BOOLEAN", "BOOL":
		return "boolean"
	case "TIMESTAMP", "TIMESTAMPTZ", "DATETIME":
		return "timestamp"
	case "DATE":
		return "date"
	case "JSON", "JSONB":
		return "json"
	case "BLOB", "BYTEA":
		return "bytes"
	case "NUMERIC", "DECIMAL":
		return "numeric"
	case "":
		return "untyped"
	}
	switch {
	case strings.Contains(d, "INT"):
		return "integer"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "text"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "real"
	}
	return strings.ToLower(d)
}

// createTable is what the schema test needs from a CREATE TABLE statement
// that SQLite's pragmas do not say.
type createTable struct {
	checks        []string        // normalised expressions
	autoincrement map[string]bool // columns declared AUTOINCREMENT
}

func parseCreateTable(stmt string) createTable {
	def := createTable{autoincrement: map[string]bool{}}
	toks := lex(stmt)
	open := slices.IndexFunc(toks, func(t token) bool { return t.text == "(" })
	if open < 0 {
		return def
	}
	body, _ := group(toks, open)
	for _, part := range splitTopLevel(body) {
		if len(part) == 0 {
			continue
		}
		tableConstraint := slices.Contains([]string{"constraint", "primary", "unique", "check", "foreign"}, part[0].text)
		if !tableConstraint && slices.ContainsFunc(part, func(t token) bool { return t.kind == tokWord && t.text == "autoincrement" }) {
			def.autoincrement[part[0].text] = true
		}
		for i := 0; i < len(part); i++ {
			if part[i].kind == tokWord && part[i].text == "check" && i+1 < len(part) && part[i+1].text == "(" {
				inner, end := group(part, i+1)
				def.checks = append(def.checks, normExpr(inner))
				i = end - 1
			}
		}
	}
	return def
}

// parseCreateIndex returns an index's normalised keys and partial
// predicate from its CREATE INDEX statement, as SQLite keeps it or as
// PostgreSQL's pg_get_indexdef writes it (which adds "USING btree" and
// the schema).
func parseCreateIndex(stmt string) (keys []string, where string) {
	toks := lex(stmt)
	on := slices.IndexFunc(toks, func(t token) bool { return t.kind == tokWord && t.text == "on" })
	if on < 0 {
		return nil, ""
	}
	open := on + slices.IndexFunc(toks[on:], func(t token) bool { return t.text == "(" })
	if open < on {
		return nil, ""
	}
	inner, end := group(toks, open)
	for _, k := range splitTopLevel(inner) {
		keys = append(keys, strings.TrimSuffix(normExpr(k), " asc"))
	}
	rest := toks[end:]
	if len(rest) > 0 && rest[0].kind == tokWord && rest[0].text == "where" {
		where = normExpr(rest[1:])
	}
	return keys, where
}

// --- PostgreSQL --------------------------------------------------------------

// readPostgresSchema reads information_schema and pg_catalog for the
// connection's current schema (storetest gives each test its own).
func readPostgresSchema(ctx context.Context, db *store.DB) (schema, error) {
	s := schema{}
	err := query(ctx, db, `SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = current_schema()`,
		func(r *sql.Rows) error {
			var name, typ string
			if err := r.Scan(&name, &typ); err != nil {
				return err
			}
			if isBookkeeping(name) {
				return nil
			}
			if typ == "VIEW" {
				s[schemaItem{kind: kindView, table: name}] = ""
			} else {
				s[schemaItem{kind: kindTable, table: name}] = ""
			}
			return nil
		})
	if err != nil {
		return nil, err
	}

	err = query(ctx, db, `
SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, coalesce(c.column_default, ''), c.is_identity
FROM information_schema.columns c
JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`,
		func(r *sql.Rows) error {
			var table, name, typ, nullable, deflt, identity string
			if err := r.Scan(&table, &name, &typ, &nullable, &deflt, &identity); err != nil {
				return err
			}
			if isBookkeeping(table) {
				return nil
			}
			family := postgresFamily(typ)
			auto := identity == "YES"
			if strings.HasPrefix(deflt, "nextval(") { // serial: generated, not a default
				auto, deflt = true, ""
			}
			s[schemaItem{kind: kindColumn, table: table, name: name}] =
				describeColumn(family, nullable == "NO", normDefault(family, deflt), auto)
			return nil
		})
	if err != nil {
		return nil, err
	}

	// Indexes; one a PRIMARY KEY or UNIQUE constraint owns is compared as
	// that constraint, by its columns, since SQLite names those itself.
	err = query(ctx, db, `
SELECT t.relname, i.relname, ix.indisunique, pg_get_indexdef(ix.indexrelid),
       coalesce((SELECT string_agg(c.contype::text, '') FROM pg_constraint c
                 WHERE c.conindid = ix.indexrelid AND c.conrelid = ix.indrelid AND c.contype IN ('p', 'u', 'x')), '')
FROM pg_index ix
JOIN pg_class i ON i.oid = ix.indexrelid
JOIN pg_class t ON t.oid = ix.indrelid
WHERE t.relnamespace = current_schema()::regnamespace`,
		func(r *sql.Rows) error {
			var table, name, def, constraint string
			var unique bool
			if err := r.Scan(&table, &name, &unique, &def, &constraint); err != nil {
				return err
			}
			if isBookkeeping(table) {
				return nil
			}
			keys, where := parseCreateIndex(def)
			switch constraint {
			case "p": // the primary key, read from pg_constraint below
			case "u":
				s[schemaItem{kind: kindUnique, table: table, name: strings.Join(keys, ", ")}] = ""
			default:
				s[schemaItem{kind: kindIndex, table: table, name: name}] = describeIndex(unique, keys, where)
			}
			return nil
		})
	if err != nil {
		return nil, err
	}

	err = query(ctx, db, `
SELECT t.relname, c.contype::text, pg_get_constraintdef(c.oid, true),
       array_to_string(ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, o)
                             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o), ', '),
       coalesce(r.relname, ''),
       array_to_string(ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, o)
                             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o), ', '),
       c.confdeltype::text, c.confupdtype::text
FROM pg_constraint c
JOIN pg_class t ON t.oid = c.conrelid
LEFT JOIN pg_class r ON r.oid = c.confrelid
WHERE t.relnamespace = current_schema()::regnamespace AND c.contype IN ('p', 'f', 'c')
ORDER BY t.relname, c.conname`,
		func(r *sql.Rows) error {
			var table, typ, def, cols, ref, refCols, onDelete, onUpdate string
			if err := r.Scan(&table, &typ, &def, &cols, &ref, &refCols, &onDelete, &onUpdate); err != nil {
				return err
			}
			if isBookkeeping(table) {
				return nil
			}
			switch typ {
			case "p":
				s[schemaItem{kind: kindPrimaryKey, table: table}] = cols
			case "f":
				it := schemaItem{kind: kindForeignKey, table: table, name: cols}
				d := describeForeignKey(ref, refCols, postgresAction(onDelete), postgresAction(onUpdate))
				if prev, ok := s[it]; ok {
					d = prev + "; " + d
				}
				s[it] = d
			case "c": // "CHECK (expr)", perhaps followed by NOT VALID
				toks := lex(def)
				if len(toks) < 2 || toks[0].text != "check" || toks[1].text != "(" {
					return fmt.Errorf("unexpected check on %s: %s", table, def)
				}
				toks, _ = group(toks, 1)
				s.addCheck(table, normExpr(toks))
			}
			return nil
		})
	if err != nil {
		return nil, err
	}

	err = query(ctx, db, `SELECT DISTINCT event_object_table, trigger_name FROM information_schema.triggers WHERE trigger_schema = current_schema()`,
		func(r *sql.Rows) error {
			var table, name string
			if err := r.Scan(&table, &name); err != nil {
				return err
			}
			s[schemaItem{kind: kindTrigger, table: table, name: name}] = ""
			return nil
		})
	return s, err
}

// postgresFamily maps information_schema's data_type to its family.
func postgresFamily(dataType string) string {
	switch dataType {
	case "bigint", "integer", "smallint":
		return "integer"
	case "text", "character varying", "character":
		return "text"
	case "boolean":
		return "boolean"
	case "timestamp with time zone":
		return "timestamp"
	case "date":
		return "date"
	case "double precision", "real":
		return "real"
	case "numeric":
		return "numeric"
	case "bytea":
		return "bytes"
	case "json", "jsonb":
		return "json"
	}
	// timestamp without time zone among others: no SQLite type says it.
	return dataType
}

// postgresAction spells pg_constraint's action codes as SQLite's
// pragma_foreign_key_list does.
func postgresAction(code string) string {
	switch code {
	case "r":
		return "restrict"
	case "c":
		return "cascade"
	case "n":
		return "set null"
	case "d":
		return "set default"
	}
	return "no action"
}

// --- expressions -------------------------------------------------------------

type tokenKind int

const (
	tokWord   tokenKind = iota // keyword or identifier, lower-cased, unquoted
	tokString                  // a string literal as written, quotes included
	tokNumber
	tokPunct
)

type token struct {
	kind tokenKind
	text string
}

// lex splits SQL into tokens, dropping whitespace and comments.
func lex(s string) []token {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "--"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return toks
			}
			i += end + 4
		case c == '\'':
			j := i + 1
			for j < len(s) {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			toks = append(toks, token{tokString, s[i:min(j+1, len(s))]})
			i = j + 1
		case c == '"' || c == '`':
			j := i + 1
			for j < len(s) && s[j] != c {
				j++
			}
			toks = append(toks, token{tokWord, strings.ToLower(s[i+1 : min(j, len(s))])})
			i = j + 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			toks = append(toks, token{tokNumber, s[i:j]})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			toks = append(toks, token{tokWord, strings.ToLower(s[i:j])})
			i = j
		default:
			n := 1
			if i+1 < len(s) && slices.Contains([]string{"::", "<=", ">=", "<>", "!=", "==", "||"}, s[i:i+2]) {
				n = 2
			}
			toks = append(toks, token{tokPunct, s[i : i+n]})
			i += n
		}
	}
	return toks
}

// group returns what lies between toks[open] (an opening parenthesis or
// bracket) and its match, and the index just after the match.
func group(toks []token, open int) (inner []token, end int) {
	o := toks[open].text
	c := map[string]string{"(": ")", "[": "]"}[o]
	depth := 0
	for i := open; i < len(toks); i++ {
		switch toks[i].text {
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return toks[open+1 : i], i + 1
			}
		}
	}
	return toks[open+1:], len(toks)
}

// splitTopLevel splits toks at the commas outside any parentheses.
func splitTopLevel(toks []token) [][]token {
	var parts [][]token
	depth, start := 0, 0
	for i, t := range toks {
		switch t.text {
		case "(", "[":
			depth++
		case ")", "]":
			depth--
		case ",":
			if depth == 0 {
				parts = append(parts, toks[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, toks[start:])
}

// normExpr writes an expression (a CHECK, a partial index's predicate, an
// index key, a default) the same way whichever dialect produced it:
// SQLite keeps the text as the migration wrote it, PostgreSQL deparses it
// with casts (::text), full parentheses, "= ANY (ARRAY[...])" for IN,
// "x >= a AND x <= b" for BETWEEN and "<>" for "!=". So: casts go, those
// forms are rewritten to one spelling, keywords and identifiers are
// lower-cased, and every parenthesis goes. Dropping parentheses loses
// grouping, so two expressions differing only in how their AND and OR
// nest would compare equal; none of the trees' expressions does, and the
// columns and constants of each check are still compared.
func normExpr(toks []token) string {
	toks = dropCasts(toks)
	toks = rewriteArrayComparisons(toks)
	toks = rewriteSingleIn(toks)
	toks = rewriteBetween(toks)
	var out []string
	for _, t := range toks {
		switch t.text {
		case "(", ")":
			continue
		case "!=":
			out = append(out, "<>")
		case "==":
			out = append(out, "=")
		default:
			out = append(out, t.text)
		}
	}
	return strings.Join(out, " ")
}

// castWords may follow a cast's first word in a PostgreSQL type name.
var castWords = []string{"precision", "varying", "with", "without", "time", "zone"}

func dropCasts(toks []token) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		if toks[i].text != "::" {
			out = append(out, toks[i])
			continue
		}
		i++ // the type's first word
		for i+1 < len(toks) && toks[i+1].kind == tokWord && slices.Contains(castWords, toks[i+1].text) {
			i++
		}
		if i+1 < len(toks) && toks[i+1].text == "(" { // varchar(64)
			_, end := group(toks, i+1)
			i = end - 1
		}
		for i+2 < len(toks) && toks[i+1].text == "[" && toks[i+2].text == "]" {
			i += 2
		}
	}
	return out
}

// rewriteArrayComparisons turns PostgreSQL's "x = ANY (ARRAY[a, b])" back
// into "x IN (a, b)", and "x <> ALL (ARRAY[a, b])" into "x NOT IN (a, b)".
func rewriteArrayComparisons(toks []token) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if i+4 < len(toks) && (t.text == "=" && toks[i+1].text == "any" || t.text == "<>" && toks[i+1].text == "all") &&
			toks[i+2].text == "(" && toks[i+3].text == "array" && toks[i+4].text == "[" {
			items, end := group(toks, i+4)
			if end < len(toks) && toks[end].text == ")" {
				if t.text == "<>" {
					out = append(out, token{tokWord, "not"})
				}
				out = append(out, token{tokWord, "in"}, token{tokPunct, "("})
				out = append(out, items...)
				out = append(out, token{tokPunct, ")"})
				i = end
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// rewriteSingleIn turns "x IN (a)" into "x = a" and "x NOT IN (a)" into
// "x <> a", as PostgreSQL stores them.
func rewriteSingleIn(toks []token) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tokWord && t.text == "in" && i+1 < len(toks) && toks[i+1].text == "(" {
			inner, end := group(toks, i+1)
			if len(splitTopLevel(inner)) == 1 && !slices.ContainsFunc(inner, func(t token) bool { return t.kind == tokWord && t.text == "select" }) {
				op := "="
				if n := len(out); n > 0 && out[n-1].kind == tokWord && out[n-1].text == "not" {
					out, op = out[:n-1], "<>"
				}
				out = append(out, token{tokPunct, op})
				out = append(out, inner...)
				i = end - 1
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// rewriteBetween turns "x BETWEEN a AND b" into "x >= a AND x <= b", as
// PostgreSQL stores it.
func rewriteBetween(toks []token) []token {
	for i := 1; i < len(toks); i++ {
		if toks[i].kind != tokWord || toks[i].text != "between" || toks[i-1].text == "not" {
			continue
		}
		start := operandStart(toks, i-1)
		aEnd := operandEnd(toks, i+1)
		if aEnd >= len(toks) || toks[aEnd].text != "and" {
			continue
		}
		bEnd := operandEnd(toks, aEnd+1)
		x, a, b := toks[start:i], toks[i+1:aEnd], toks[aEnd+1:bEnd]
		var r []token
		r = append(r, toks[:start]...)
		r = append(r, x...)
		r = append(r, token{tokPunct, ">="})
		r = append(r, a...)
		r = append(r, token{tokWord, "and"})
		r = append(r, x...)
		r = append(r, token{tokPunct, "<="})
		r = append(r, b...)
		r = append(r, toks[bEnd:]...)
		toks = r
	}
	return toks
}

// sqlKeywords are words that are never a function's name before "(".
var sqlKeywords = []string{"and", "or", "not", "in", "between", "is", "when", "then", "else", "case", "where", "check"}

// operandStart is where the operand ending at toks[j] begins: a name, a
// literal, a parenthesised expression or a function call.
func operandStart(toks []token, j int) int {
	if toks[j].text != ")" {
		return j
	}
	depth := 0
	for k := j; k >= 0; k-- {
		switch toks[k].text {
		case ")":
			depth++
		case "(":
			depth--
			if depth == 0 {
				if k > 0 && toks[k-1].kind == tokWord && !slices.Contains(sqlKeywords, toks[k-1].text) {
					return k - 1
				}
				return k
			}
		}
	}
	return 0
}

// operandEnd is the index just after the operand starting at toks[j].
func operandEnd(toks []token, j int) int {
	switch {
	case j >= len(toks):
		return len(toks)
	case toks[j].text == "-" || toks[j].text == "+":
		return operandEnd(toks, j+1)
	case toks[j].text == "(":
		_, end := group(toks, j)
		return end
	case toks[j].kind == tokWord && j+1 < len(toks) && toks[j+1].text == "(":
		_, end := group(toks, j+1)
		return end
	}
	return j + 1
}

// normDefault normalises a column default: none and NULL are the same,
// a boolean's 0 and 1 are false and true, and now() is CURRENT_TIMESTAMP.
func normDefault(family, raw string) string {
	d := normExpr(lex(raw))
	switch {
	case d == "null":
		return ""
	case d == "now":
		return "current_timestamp"
	case family == "boolean" && slices.Contains([]string{"0", "'0'", "false", "'f'"}, d):
		return "false"
	case family == "boolean" && slices.Contains([]string{"1", "'1'", "true", "'t'"}, d):
		return "true"
	}
	return d
}
