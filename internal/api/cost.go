package api

import (
	"strings"

	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/internal/fault"
)

// operationLimits bound what one operation may ask of the server. A zero
// limit refuses everything it counts; Config fills the defaults.
type operationLimits struct {
	// Complexity bounds the operation's cost: each field costs one plus
	// the cost of its children, fragments expanded where they are spread
	// (gqlgen's default model; introspection fields are counted too).
	Complexity int
	// Depth bounds how deeply fields nest, through fragments.
	Depth int
	// Fragments bounds the distinct named fragments the operation reaches.
	Fragments int
	// Spreads bounds the fragment spreads written in the operation and in
	// the fragments it reaches (each fragment's body counted once).
	Spreads int
	// Aliases bounds the fields whose alias differs from their name,
	// counted as Spreads are.
	Aliases int
}

// Introspection is measured as any other selection (each field costs one,
// it counts against the depth and complexity limits), with two
// differences, both decided by the field's definition in the validated
// document (a document measured unvalidated, before gqlgen validates it,
// has none and gets neither):
//
//   - __Type.ofType adds no depth. It unwraps a list or non-null type one
//     level, returns one type (never a list) and null past the last
//     wrapper, so its chains fan out to nothing; the standard
//     introspection query (graphql-js getIntrospectionQuery, which
//     GraphiQL sends) nests it nine times in its TypeRef fragment, depth
//     15 counted plainly and 6 this way. Every ofType still costs one, so
//     a long chain is bounded by the complexity limit.
//   - Introspection's own lists (the list fields of the __ types:
//     types, fields, args, inputFields, interfaces, possibleTypes,
//     enumValues, directives) nest at most introspectionListNesting deep.
//     They are what makes introspection costly: each level multiplies
//     the answer by the schema's width (a hundred types, tens of fields
//     each), and the depth limit alone let types { fields { type {
//     fields { type { args … } } } } } ask for millions of objects. The
//     standard query nests three (types, fields, args). gqlparser's
//     validation (graphql-js's MaxIntrospectionDepth rule) counts only
//     fields, interfaces, possibleTypes and inputFields, and refuses
//     three of them nested; this counts every list, so types { fields {
//     args { type { fields { args } } } } } (two of those, five lists)
//     is refused too.
//
// Both are refused with DEPTH_LIMIT_EXCEEDED, as the depth limit is.
const introspectionListNesting = 3

// fieldWeight is what a field adds to the depth and to the nesting of
// introspection lists.
func fieldWeight(f *ast.Field) (depth, lists int) {
	if f.Definition == nil || f.ObjectDefinition == nil || !strings.HasPrefix(f.ObjectDefinition.Name, "__") {
		return 1, 0
	}
	if f.ObjectDefinition.Name == "__Type" && f.Name == "ofType" {
		return 0, 0
	}
	if f.Definition.Type != nil && f.Definition.Type.Elem != nil {
		return 1, 1
	}
	return 1, 0
}

// fragmentMeasure is what a fragment adds where it is spread: its cost,
// the levels of fields it nests and the levels of introspection lists.
// None depends on the spread's place (no field of the schema has its own
// complexity function, and a field's weight is its definition's), so
// each fragment is measured once per operation and reused for every
// spread.
type fragmentMeasure struct {
	cost, height, lists int
	done                bool // false while its body is being measured
}

// meter measures one operation in a single pass over its document: a
// selection is visited once, whether it is in the operation or in a
// fragment, so the work is linear in the document's size however often
// fragments spread one another. It stops at the first limit passed.
type meter struct {
	limits    operationLimits
	fragments map[string]*ast.FragmentDefinition
	measured  map[string]*fragmentMeasure
	spreads   int
	aliases   int
	// visited counts the selections walked, for the tests that hold the
	// walk to the document's size.
	visited int
}

// measureOperation checks op, with the document's fragments, against
// limits. It returns the first limit passed as an error coded
// COMPLEXITY_LIMIT_EXCEEDED or DEPTH_LIMIT_EXCEEDED, and the number of
// selections it visited. A document is expected to have passed
// validation (every spread names a fragment, no fragment spreads itself),
// but nothing here relies on it to end.
func measureOperation(op *ast.OperationDefinition, fragments ast.FragmentDefinitionList, limits operationLimits) (visited int, err *gqlerror.Error) {
	m := &meter{
		limits:    limits,
		fragments: make(map[string]*ast.FragmentDefinition, len(fragments)),
		measured:  map[string]*fragmentMeasure{},
	}
	for _, f := range fragments {
		if _, ok := m.fragments[f.Name]; !ok { // the first of duplicates, as ForName
			m.fragments[f.Name] = f
		}
	}
	_, _, _, err = m.selectionSet(op.SelectionSet, 0, 0)
	return m.visited, err
}

// selectionSet returns the cost of set, the levels of fields it nests and
// the levels of introspection lists, all relative to set. at and lists
// are how deep set lies in the operation, in fields and in introspection
// lists (at its first place, for a fragment): they let the walk stop as
// soon as a field would pass a limit.
func (m *meter) selectionSet(set ast.SelectionSet, at, lists int) (cost, height, listHeight int, err *gqlerror.Error) {
	for _, sel := range set {
		m.visited++
		var c, h, l int
		switch s := sel.(type) {
		case *ast.Field:
			if s.Alias != "" && s.Alias != s.Name {
				if m.aliases++; m.aliases > m.limits.Aliases {
					return 0, 0, 0, overCap("the operation has more than %d aliases", m.limits.Aliases)
				}
			}
			dw, lw := fieldWeight(s)
			if at+dw > m.limits.Depth {
				return 0, 0, 0, overDepth(m.limits.Depth)
			}
			if lists+lw > introspectionListNesting {
				return 0, 0, 0, overIntrospectionNesting()
			}
			if c, h, l, err = m.selectionSet(s.SelectionSet, at+dw, lists+lw); err != nil {
				return 0, 0, 0, err
			}
			c, h, l = c+1, h+dw, l+lw // c is at most the limit, so this cannot overflow
		case *ast.InlineFragment:
			if c, h, l, err = m.selectionSet(s.SelectionSet, at, lists); err != nil {
				return 0, 0, 0, err
			}
		case *ast.FragmentSpread:
			if m.spreads++; m.spreads > m.limits.Spreads {
				return 0, 0, 0, overCap("the operation has more than %d fragment spreads", m.limits.Spreads)
			}
			f, err := m.fragment(s.Name, at, lists)
			if err != nil {
				return 0, 0, 0, err
			}
			if at+f.height > m.limits.Depth {
				return 0, 0, 0, overDepth(m.limits.Depth)
			}
			if lists+f.lists > introspectionListNesting {
				return 0, 0, 0, overIntrospectionNesting()
			}
			c, h, l = f.cost, f.height, f.lists
		}
		// Both cost and c are at most the limit here, so comparing this
		// way never overflows.
		if c > m.limits.Complexity-cost {
			return 0, 0, 0, overComplexity(m.limits.Complexity)
		}
		cost += c
		height = max(height, h)
		listHeight = max(listHeight, l)
	}
	return cost, height, listHeight, nil
}

// fragment returns the measure of the fragment name, measuring its body
// the first time it is spread (at depth at, under lists introspection
// lists).
func (m *meter) fragment(name string, at, lists int) (*fragmentMeasure, *gqlerror.Error) {
	if f, ok := m.measured[name]; ok {
		if !f.done {
			return nil, overCap("fragment %s spreads itself", name)
		}
		return f, nil
	}
	f := &fragmentMeasure{}
	m.measured[name] = f
	if len(m.measured) > m.limits.Fragments {
		return nil, overCap("the operation uses more than %d fragments", m.limits.Fragments)
	}
	if def := m.fragments[name]; def != nil { // unknown names are refused by validation
		var err *gqlerror.Error
		if f.cost, f.height, f.lists, err = m.selectionSet(def.SelectionSet, at, lists); err != nil {
			return nil, err
		}
	}
	f.done = true
	return f, nil
}

// measureDocument checks the shape of doc as written, before it is
// validated: gqlparser's validation is itself superlinear in some shapes
// (OverlappingFieldsCanBeMerged compares fields pairwise; each fragment
// is walked again from every fragment), so a document must be small
// before it runs. Each selection is counted once, spreads not followed:
// the fragments defined, the spreads, the aliases and the fields written.
// Every field written costs at least one (validation refuses unused
// fragments), so more fields than the complexity limit is over it.
func measureDocument(doc *ast.QueryDocument, limits operationLimits) *gqlerror.Error {
	if len(doc.Fragments) > limits.Fragments {
		return overCap("the operation uses more than %d fragments", limits.Fragments)
	}
	var fields, spreads, aliases int
	var count func(ast.SelectionSet) *gqlerror.Error
	count = func(set ast.SelectionSet) *gqlerror.Error {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if s.Alias != "" && s.Alias != s.Name {
					if aliases++; aliases > limits.Aliases {
						return overCap("the operation has more than %d aliases", limits.Aliases)
					}
				}
				if fields++; fields > limits.Complexity {
					return overComplexity(limits.Complexity)
				}
				if err := count(s.SelectionSet); err != nil {
					return err
				}
			case *ast.InlineFragment:
				if err := count(s.SelectionSet); err != nil {
					return err
				}
			case *ast.FragmentSpread:
				if spreads++; spreads > limits.Spreads {
					return overCap("the operation has more than %d fragment spreads", limits.Spreads)
				}
			}
		}
		return nil
	}
	for _, op := range doc.Operations {
		if err := count(op.SelectionSet); err != nil {
			return err
		}
	}
	for _, f := range doc.Fragments {
		if err := count(f.SelectionSet); err != nil {
			return err
		}
	}
	return nil
}

func overComplexity(limit int) *gqlerror.Error {
	return coded(fault.ComplexityLimitExceeded, gqlerror.Errorf("operation has complexity over the limit of %d", limit))
}

func overDepth(limit int) *gqlerror.Error {
	return coded(fault.DepthLimitExceeded, gqlerror.Errorf("operation has depth over the limit of %d", limit))
}

// overIntrospectionNesting reports introspection lists nested past
// introspectionListNesting: a limit on depth, coded as the depth limit is.
func overIntrospectionNesting() *gqlerror.Error {
	return coded(fault.DepthLimitExceeded, gqlerror.Errorf("operation nests introspection lists more than %d deep", introspectionListNesting))
}

// overCap reports a cap on the document's shape. The error presenter sends
// only ErrorCode values, so the caps share COMPLEXITY_LIMIT_EXCEEDED and
// the message names the cap.
func overCap(format string, args ...any) *gqlerror.Error {
	return coded(fault.ComplexityLimitExceeded, gqlerror.Errorf(format, args...))
}

func coded(code fault.Code, err *gqlerror.Error) *gqlerror.Error {
	errcode.Set(err, string(code))
	return err
}
