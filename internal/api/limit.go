package api

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/internal/fault"
)

// depthLimit refuses operations nested deeper than Max selection levels,
// counting through fragments. gqlgen has a complexity limit but no depth
// limit; cyclic schemas need both.
type depthLimit struct {
	Max int
}

var (
	_ graphql.HandlerExtension        = depthLimit{}
	_ graphql.OperationContextMutator = depthLimit{}
)

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if depth := selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0, map[string]bool{}); depth > d.Max {
		err := gqlerror.Errorf("operation has depth %d, which exceeds the limit of %d", depth, d.Max)
		errcode.Set(err, string(fault.DepthLimitExceeded))
		return err
	}
	return nil
}

func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, depth int, visiting map[string]bool) int {
	deepest := depth
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = depth + 1
			} else {
				d = selectionDepth(s.SelectionSet, frags, depth+1, visiting)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, depth, visiting)
		case *ast.FragmentSpread:
			if visiting[s.Name] {
				continue // cycles are refused by validation; never loop here
			}
			f := frags.ForName(s.Name)
			if f == nil {
				continue
			}
			visiting[s.Name] = true
			d = selectionDepth(f.SelectionSet, frags, depth, visiting)
			delete(visiting, s.Name)
		}
		if d > deepest {
			deepest = d
		}
	}
	return deepest
}
