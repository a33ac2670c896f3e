// Package validate holds the field checks every service applies to its
// input, with their problem codes, so that a name, a note or an id is
// valid by the same rule wherever it is entered.
//
// A check reports at most one problem per field on a *fault.Validation,
// naming the field by its Path, and returns whether the value passed. The
// rules:
//
//   - Lengths are counted in characters (runes), never bytes, except where
//     a rule says MaxBytes for a reason of its own (a password bounds the
//     work of hashing it; an email address is limited in octets by SMTP).
//   - A single-line field (Text's default, SingleLine) refuses every
//     control character, line breaks and tabs included, the Unicode
//     line and paragraph separators and the bidirectional overrides and
//     isolates (U+202A–U+202E, U+2066–U+2069), which reorder displayed
//     text. Multi-line text (MultiLine: notes, messages) allows '\n' and
//     '\t' and nothing else of those: a '\r' is refused, so a stored text
//     has one kind of line break. Email applies the single-line rule too,
//     and Identifier is ASCII letters, digits, '-' and '_'. Secret
//     (passwords) allows any character but NUL: it is compared, never
//     shown.
//   - No rule lets NUL or bytes that are not UTF-8 through: PostgreSQL
//     cannot store them, so they would fail in the SQL as an internal
//     error rather than as the client's mistake.
//   - Numbers are checked against inclusive bounds; NaN and ±Inf are out
//     of every range.
//   - Problems come in the order the checks run: REQUIRED before
//     TOO_SHORT before TOO_LONG before INVALID for one field.
//
// Checks allocate nothing when the value is valid: a Path is built from
// names and indices by value and is formatted, and the message written,
// only when a problem is found. The fleet's heartbeat, checked for every
// GPU every few seconds, relies on this.
package validate
