package layering

import (
	"go/ast"
	"go/types"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/packages"
)

// TestNoFloatTouchesMoney is rule 7: money is models.USDC, int64
// micro-USDC, and no code of the module converts it to a float (a float
// cannot hold every micro-USDC amount, and its rounding is not the
// ledger's). It type-checks every package of the module and fails on any
// conversion of a models.USDC value to float32 or float64, naming where.
// Ratios of amounts are taken in integers first (see internal/pricing's
// ratioOf). Test files are left out: type-checking them with their
// dependencies takes minutes on a small machine, and they hold
// expectations, not the ledger's arithmetic.
func TestNoFloatTouchesMoney(t *testing.T) {
	t.Parallel()
	found, checked := floatMoney(t, "./...")
	require.Greater(t, checked, 20, "the module's packages were type-checked")
	require.Empty(t, found, "models.USDC converted to a float")
}

// The checker finds a conversion where there is one (and only there).
func TestTheFloatMoneyCheckerFindsAConversion(t *testing.T) {
	t.Parallel()
	found, checked := floatMoney(t, "./internal/layering/testdata/floaty")
	require.Equal(t, 1, checked)
	require.Len(t, found, 1)
	require.Contains(t, found[0], "floaty.go:8:")
}

func floatMoney(t *testing.T, pattern string) ([]string, int) {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir: "../..", Tests: false}
	pkgs, err := packages.Load(cfg, pattern)
	require.NoError(t, err)
	var found []string
	checked := 0
	for _, p := range pkgs {
		if p.TypesInfo == nil {
			continue
		}
		checked++
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				tv, ok := p.TypesInfo.Types[call.Fun]
				if !ok || !tv.IsType() {
					return true
				}
				to, ok := tv.Type.Underlying().(*types.Basic)
				if !ok || to.Info()&types.IsFloat == 0 {
					return true
				}
				if isUSDC(p.TypesInfo.TypeOf(call.Args[0])) {
					found = append(found, p.Fset.Position(call.Pos()).String())
				}
				return true
			})
		}
	}
	return found, checked
}

func isUSDC(t types.Type) bool {
	named, ok := t.(*types.Named)
	if !ok {
		return false
	}
	obj := named.Obj()
	return obj.Name() == "USDC" && obj.Pkg() != nil && obj.Pkg().Path() == "github.com/gpunex/gpunex/models"
}
