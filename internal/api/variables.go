package api

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
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
// enum's, Ints as integer literals within 64 bits (as gqlgen takes them), no duplicate names,
// valid UTF-8. Strings are not looked into: a value that contains the
// characters "null" is as plain as any other.
func (s variablesShape) plain(data []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	if dec.PeekKind() != '{' {
		return false
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	var seen uint64
	if len(s.defs) > 64 {
		return false
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadValue()
		if err != nil {
			return false
		}
		i := s.defIndex(name)
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		if !s.value(s.defs[i].Type, dec) {
			return false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for i, d := range s.defs {
		if d.Type.NonNull && d.DefaultValue == nil && seen&(1<<i) == 0 {
			return false
		}
	}
	return true
}

// defIndex is the index of the variable a quoted member name names, or -1.
func (s variablesShape) defIndex(quoted jsontext.Value) int {
	name, ok := plainName(quoted)
	if !ok {
		return -1
	}
	for i, d := range s.defs {
		if string(name) == d.Variable {
			return i
		}
	}
	return -1
}

// plainName is a member name without its quotes; a name with escapes is
// not plain (the generic executor reads it). It is compared, not kept, so
// it stays bytes (string(b) == s allocates nothing).
func plainName(quoted jsontext.Value) ([]byte, bool) {
	if len(quoted) < 2 || bytes.IndexByte(quoted, '\\') >= 0 {
		return nil, false
	}
	return quoted[1 : len(quoted)-1], true
}

// value checks the next value of dec against t.
func (s variablesShape) value(t *ast.Type, dec *jsontext.Decoder) bool {
	kind := dec.PeekKind()
	if kind == 'n' {
		_, err := dec.ReadToken()
		return err == nil && !t.NonNull
	}
	if t.Elem != nil {
		if kind != '[' {
			return false
		}
		if _, err := dec.ReadToken(); err != nil {
			return false
		}
		for dec.PeekKind() != ']' {
			if !s.value(t.Elem, dec) {
				return false
			}
		}
		_, err := dec.ReadToken()
		return err == nil
	}
	def := s.schema.Types[t.NamedType]
	if def == nil {
		return false
	}
	switch def.Kind {
	case ast.InputObject:
		return kind == '{' && s.object(def, dec)
	case ast.Enum:
		raw, err := dec.ReadValue()
		if err != nil || kind != '"' {
			return false
		}
		name, ok := plainName(raw)
		if !ok {
			return false
		}
		for _, v := range def.EnumValues {
			if string(name) == v.Name {
				return true
			}
		}
		return false
	case ast.Scalar:
		raw, err := dec.ReadValue()
		if err != nil {
			return false
		}
		switch t.NamedType {
		case "Int":
			_, err := strconv.ParseInt(string(raw), 10, 64)
			return kind == '0' && err == nil
		case "Float":
			return kind == '0'
		case "Boolean":
			return kind == 't' || kind == 'f'
		default: // String, ID and custom scalars are strings here
			return kind == '"'
		}
	}
	return false
}

// object checks an input object's members against def.
func (s variablesShape) object(def *ast.Definition, dec *jsontext.Decoder) bool {
	if len(def.Fields) > 64 {
		return false
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	var seen uint64
	for dec.PeekKind() != '}' {
		quoted, err := dec.ReadValue()
		if err != nil {
			return false
		}
		name, ok := plainName(quoted)
		if !ok {
			return false
		}
		i := fieldIndex(def.Fields, name)
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		if !s.value(def.Fields[i].Type, dec) {
			return false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
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
