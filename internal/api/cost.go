package api

import (
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

// fragmentMeasure is what a fragment adds where it is spread: its cost and
// the levels of fields it nests. Neither depends on the spread's place
// (no field of the schema has its own complexity function), so each
// fragment is measured once per operation and reused for every spread.
type fragmentMeasure struct {
	cost, height int
	done         bool // false while its body is being measured
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
	_, _, err = m.selectionSet(op.SelectionSet, 0)
	return m.visited, err
}

// selectionSet returns the cost of set and the levels of fields it nests,
// both relative to set. at is how deep set lies in the operation (at its
// first place, for a fragment): it lets the walk stop as soon as a field
// would pass the depth limit.
func (m *meter) selectionSet(set ast.SelectionSet, at int) (cost, height int, err *gqlerror.Error) {
	for _, sel := range set {
		m.visited++
		var c, h int
		switch s := sel.(type) {
		case *ast.Field:
			if s.Alias != "" && s.Alias != s.Name {
				if m.aliases++; m.aliases > m.limits.Aliases {
					return 0, 0, overCap("the operation has more than %d aliases", m.limits.Aliases)
				}
			}
			if at+1 > m.limits.Depth {
				return 0, 0, overDepth(m.limits.Depth)
			}
			if c, h, err = m.selectionSet(s.SelectionSet, at+1); err != nil {
				return 0, 0, err
			}
			c, h = c+1, h+1 // c is at most the limit, so this cannot overflow
		case *ast.InlineFragment:
			if c, h, err = m.selectionSet(s.SelectionSet, at); err != nil {
				return 0, 0, err
			}
		case *ast.FragmentSpread:
			if m.spreads++; m.spreads > m.limits.Spreads {
				return 0, 0, overCap("the operation has more than %d fragment spreads", m.limits.Spreads)
			}
			f, err := m.fragment(s.Name, at)
			if err != nil {
				return 0, 0, err
			}
			if at+f.height > m.limits.Depth {
				return 0, 0, overDepth(m.limits.Depth)
			}
			c, h = f.cost, f.height
		}
		// Both cost and c are at most the limit here, so comparing this
		// way never overflows.
		if c > m.limits.Complexity-cost {
			return 0, 0, overComplexity(m.limits.Complexity)
		}
		cost += c
		height = max(height, h)
	}
	return cost, height, nil
}

// fragment returns the measure of the fragment name, measuring its body
// the first time it is spread (at depth at).
func (m *meter) fragment(name string, at int) (*fragmentMeasure, *gqlerror.Error) {
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
		if f.cost, f.height, err = m.selectionSet(def.SelectionSet, at); err != nil {
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
