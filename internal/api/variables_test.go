package api

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// heartbeatShape is the shape of the heartbeat's variables over the real
// schema.
func heartbeatShape(t testing.TB) variablesShape {
	t.Helper()
	files, err := filepath.Glob("../../schema/*.graphqls")
	require.NoError(t, err)
	var srcs []*ast.Source
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		srcs = append(srcs, &ast.Source{Name: f, Input: string(text)})
	}
	s, gqlErr := gqlparser.LoadSchema(srcs...)
	require.NoError(t, gqlErr)
	doc, errs := gqlparser.LoadQueryWithRules(s, `mutation H($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } }`, nil)
	require.Empty(t, errs)
	return variablesShape{schema: s, defs: doc.Operations[0].VariableDefinitions}
}

// The prepared path takes only variables GraphQL would read as they are;
// the equivalence tests in internal/platform compare both paths' answers,
// these name the rule each case shows.
func TestPlainVariablesAreThoseGraphQLReadsAsTheyAre(t *testing.T) {
	t.Parallel()
	shape := heartbeatShape(t)
	for _, tc := range []struct {
		desc, vars string
		plain      bool
	}{
		{"a beat", `{"input":{"machineId":"m-0000001","gpus":[{"uuid":"GPU-1","utilizationPct":71.5,"smClockMHz":1980,"throttleReasons":["sw_power_cap"],"recentUtilizationPct":[1,2.5]}]}}`, true},
		{"spaces everywhere", " { \"input\" : { \"machineId\" : \"m-0000001\" , \"gpus\" : [ ] } } ", true},
		{"a string holding null", `{"input":{"machineId":"null-null","gpus":[{"uuid":"null"}]}}`, true},
		{"a string holding a quote and a brace", `{"input":{"machineId":"m\"}{0001","gpus":[]}}`, true},
		{"null for a nullable field", `{"input":{"machineId":"m-0000001","at":null,"gpus":[{"uuid":"GPU-1","utilizationPct":null}]}}`, true},
		{"a boolean", `{"input":{"machineId":"m-0000001","gpus":[],"goingOffline":true}}`, true},
		{"null for a required field", `{"input":{"machineId":null,"gpus":[]}}`, false},
		{"null in a list of non-null", `{"input":{"machineId":"m-0000001","gpus":[{"uuid":"GPU-1","recentUtilizationPct":[1,null]}]}}`, false},
		{"a required field missing", `{"input":{"gpus":[]}}`, false},
		{"a required variable missing", `{}`, false},
		{"an unknown variable", `{"input":{"machineId":"m-0000001","gpus":[]},"x":1}`, false},
		{"an unknown member", `{"input":{"machineId":"m-0000001","gpus":[],"colour":"red"}}`, false},
		{"a duplicate member", `{"input":{"machineId":"a-0000001","machineId":"m-0000001","gpus":[]}}`, false},
		{"an escaped member name", `{"input":{"machin\u0065Id":"m-0000001","gpus":[]}}`, false},
		{"one value for a list", `{"input":{"machineId":"m-0000001","gpus":[{"uuid":"GPU-1","throttleReasons":"x"}]}}`, false},
		{"a fraction for an Int", `{"input":{"machineId":"m-0000001","gpus":[{"uuid":"GPU-1","smClockMHz":1.5}]}}`, false},
		{"an exponent for an Int", `{"input":{"machineId":"m-0000001","gpus":[{"uuid":"GPU-1","smClockMHz":1e3}]}}`, false},
		{"a string for a Float", `{"input":{"machineId":"m-0000001","gpus":[{"uuid":"GPU-1","utilizationPct":"1"}]}}`, false},
		{"a number for a String", `{"input":{"machineId":17,"gpus":[]}}`, false},
		{"a string for a Boolean", `{"input":{"machineId":"m-0000001","gpus":[],"goingOffline":"yes"}}`, false},
		{"trailing data", `{"input":{"machineId":"m-0000001","gpus":[]}} {}`, false},
		{"not an object", `[1]`, false},
		{"cut short", `{"input":{"machineId":"m-0000001","gpus":[`, false},
	} {
		require.Equal(t, tc.plain, shape.plain([]byte(tc.vars)), tc.desc)
	}
}

// BenchmarkVariablesShapePlain measures the check on a heartbeat of 8 GPUs
// with 30 samples each, as gpunex-agent sends it.
func BenchmarkVariablesShapePlain(b *testing.B) {
	shape := heartbeatShape(b)
	hist := make([]float64, 30)
	for i := range hist {
		hist[i] = float64(40 + i)
	}
	var gpus []any
	for i := range 8 {
		gpus = append(gpus, map[string]any{"uuid": fmt.Sprintf("GPU-m-%d", i), "utilizationPct": 71.0, "memoryUsedBytes": 6.1e10,
			"temperatureC": 64.0, "powerDrawW": 512.5, "smClockMHz": 1980, "throttleReasons": []string{"sw_power_cap"},
			"eccCorrected": 0.0, "eccUncorrected": 0.0, "recentUtilizationPct": hist})
	}
	data, _ := json.Marshal(map[string]any{"input": map[string]any{"machineId": "machine-0001", "gpus": gpus}})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if !shape.plain(data) {
			b.Fatal("a heartbeat is plain")
		}
	}
}
