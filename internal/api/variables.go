package api

import (
	"bytes"

	"github.com/vektah/gqlparser/v2/ast"
)

// variablesShape is what a prepared operation's variables look like in
// their plain form: the form its client sends, which a strict decoder
// reads into the resolver's types with the same meaning GraphQL gives it.
type variablesShape struct {
	schema *ast.Schema
	defs   ast.VariableDefinitionList
}

// plain walks data once against the operation's variable definitions and
// the schema's input types: every variable defined and no other, required
// members present, null only where the type is nullable, lists given as
// lists (GraphQL would coerce a single value), enum values among the
// enum's, Ints as integer literals within 64 bits (as gqlgen takes them),
// no duplicate or escaped names. Strings are not looked into: a value that
// contains the characters "null" is as plain as any other. The walk
// allocates nothing; it only says whether the strict decoder that follows
// (which also checks JSON syntax and UTF-8) may take the variables.
func (s variablesShape) plain(data []byte) bool {
	if len(s.defs) > 64 {
		return false
	}
	sc := scanner{data: data}
	if !sc.open('{') {
		return false
	}
	var seen uint64
	for first := true; !sc.close('}'); first = false {
		if !first && !sc.next(',') {
			return false
		}
		name, ok := sc.name()
		if !ok {
			return false
		}
		i := s.defIndex(name)
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		if !s.value(s.defs[i].Type, &sc) {
			return false
		}
	}
	for i, d := range s.defs {
		if d.Type.NonNull && d.DefaultValue == nil && seen&(1<<i) == 0 {
			return false
		}
	}
	sc.space()
	return sc.i == len(sc.data)
}

// defIndex is the index of the variable name names, or -1.
func (s variablesShape) defIndex(name []byte) int {
	for i, d := range s.defs {
		if string(name) == d.Variable {
			return i
		}
	}
	return -1
}

// value checks the next value of sc against t.
func (s variablesShape) value(t *ast.Type, sc *scanner) bool {
	sc.space()
	if sc.literal("null") {
		return !t.NonNull
	}
	if t.Elem != nil {
		if !sc.open('[') {
			return false
		}
		for first := true; !sc.close(']'); first = false {
			if !first && !sc.next(',') {
				return false
			}
			if !s.value(t.Elem, sc) {
				return false
			}
		}
		return true
	}
	switch t.NamedType { // the built-in scalars, without a map lookup
	case "Int":
		return sc.integer()
	case "Float":
		return sc.number()
	case "Boolean":
		return sc.literal("true") || sc.literal("false")
	case "String", "ID":
		_, ok := sc.str()
		return ok
	}
	def := s.schema.Types[t.NamedType]
	if def == nil {
		return false
	}
	switch def.Kind {
	case ast.InputObject:
		return s.object(def, sc)
	case ast.Enum:
		name, ok := sc.name()
		if !ok {
			return false
		}
		for _, v := range def.EnumValues {
			if string(name) == v.Name {
				return true
			}
		}
		return false
	case ast.Scalar: // custom scalars (DateTime, USDC) are strings here
		_, ok := sc.str()
		return ok
	}
	return false
}

// object checks an input object's members against def.
func (s variablesShape) object(def *ast.Definition, sc *scanner) bool {
	if len(def.Fields) > 64 || !sc.open('{') {
		return false
	}
	var seen uint64
	for first := true; !sc.close('}'); first = false {
		if !first && !sc.next(',') {
			return false
		}
		name, ok := sc.name()
		if !ok {
			return false
		}
		i := fieldIndex(def.Fields, name)
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		if !s.value(def.Fields[i].Type, sc) {
			return false
		}
	}
	for i, f := range def.Fields {
		if f.Type.NonNull && f.DefaultValue == nil && seen&(1<<i) == 0 {
			return false
		}
	}
	return true
}

func fieldIndex(fields ast.FieldList, name []byte) int {
	for i, f := range fields {
		if string(name) == f.Name {
			return i
		}
	}
	return -1
}

// scanner reads JSON tokens from data without allocating. It is lenient
// where the strict decoder that runs after it is strict (UTF-8, control
// characters in strings), and answers false at anything it does not
// expect, which sends the request to the generic executor.
type scanner struct {
	data []byte
	i    int
}

func (sc *scanner) space() {
	for sc.i < len(sc.data) {
		switch sc.data[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// next consumes c after optional space.
func (sc *scanner) next(c byte) bool {
	sc.space()
	if sc.i < len(sc.data) && sc.data[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

// open consumes an opening bracket or brace.
func (sc *scanner) open(c byte) bool { return sc.next(c) }

// close consumes a closing bracket or brace if it is next.
func (sc *scanner) close(c byte) bool { return sc.next(c) }

// literal consumes word (null, true, false) if it is next.
func (sc *scanner) literal(word string) bool {
	sc.space()
	if len(sc.data)-sc.i >= len(word) && string(sc.data[sc.i:sc.i+len(word)]) == word {
		sc.i += len(word)
		return true
	}
	return false
}

// str consumes a string and returns its raw content, escapes included.
func (sc *scanner) str() ([]byte, bool) {
	sc.space()
	if sc.i >= len(sc.data) || sc.data[sc.i] != '"' {
		return nil, false
	}
	start := sc.i + 1
	for j := start; j < len(sc.data); j++ {
		switch sc.data[j] {
		case '\\':
			j++ // the escaped character; \uXXXX's digits are plain bytes
		case '"':
			sc.i = j + 1
			return sc.data[start:j], true
		}
	}
	return nil, false
}

// name consumes a string without escapes (a member name or an enum
// value) and, for a member name, the colon after it.
func (sc *scanner) name() ([]byte, bool) {
	s, ok := sc.str()
	if !ok || bytes.IndexByte(s, '\\') >= 0 {
		return nil, false
	}
	sc.space()
	if sc.i < len(sc.data) && sc.data[sc.i] == ':' {
		sc.i++
	}
	return s, true
}

// number consumes a JSON number.
func (sc *scanner) number() bool {
	sc.space()
	start := sc.i
	for sc.i < len(sc.data) && numberByte(sc.data[sc.i]) {
		sc.i++
	}
	return sc.i > start
}

// numberByte says whether c may be part of a JSON number (the strict
// decoder checks the number's form).
func numberByte(c byte) bool {
	switch {
	case '0' <= c && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
		return true
	}
	return false
}

// integer consumes an integer literal that fits in 64 bits: an optional
// minus and at most 18 digits (longer ones go to the generic executor).
func (sc *scanner) integer() bool {
	sc.space()
	start := sc.i
	if sc.i < len(sc.data) && sc.data[sc.i] == '-' {
		sc.i++
	}
	digits := sc.i
	for sc.i < len(sc.data) && '0' <= sc.data[sc.i] && sc.data[sc.i] <= '9' {
		sc.i++
	}
	n := sc.i - digits
	if n == 0 || n > 18 || sc.i < len(sc.data) && (sc.data[sc.i] == '.' || sc.data[sc.i] == 'e' || sc.data[sc.i] == 'E') {
		sc.i = start
		return false
	}
	return true
}
