package validate_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
)

// problem is what one check reported: "" when it passed.
func problem(t *testing.T, check func(v *fault.Validation) bool) (field string, code fault.ProblemCode) {
	t.Helper()
	var v fault.Validation
	ok := check(&v)
	require.Equal(t, ok, len(v.Problems) == 0, "the result and the problems disagree: %v", v.Problems)
	require.LessOrEqual(t, len(v.Problems), 1, "one problem per field at most")
	if ok {
		return "", ""
	}
	require.NotEmpty(t, v.Problems[0].Message)
	return v.Problems[0].Field, v.Problems[0].Code
}

func TestPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		path validate.Path
		want string
	}{
		{desc: "a formatted path", path: validate.At("input.email"), want: "input.email"},
		{desc: "a member", path: validate.At("input").Field("hostname"), want: "input.hostname"},
		{desc: "a member of a list element", path: validate.At("input.gpus").Index(3).Field("uuid"), want: "input.gpus.3.uuid"},
		{desc: "an element of a list in a list element", path: validate.At("input.gpus").Index(0).Field("throttleReasons").Index(7), want: "input.gpus.0.throttleReasons.7"},
		{desc: "deeper than a Path holds unformatted",
			path: validate.At("input").Field("gpus").Index(1).Field("availability").Field("windows").Index(2).Field("start"),
			want: "input.gpus.1.availability.windows.2.start"},
		{desc: "from no prefix", path: validate.At("").Field("name"), want: "name"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, tc.path.String())
		})
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	name := validate.Text{Required: true, MaxRunes: 5}
	notes := validate.Text{MaxRunes: 20, Chars: validate.MultiLine}
	password := validate.Text{Required: true, MinRunes: 3, MaxBytes: 8, Chars: validate.Secret}
	cases := []struct {
		desc string
		rule validate.Text
		in   string
		want fault.ProblemCode
	}{
		{desc: "required and given", rule: name, in: "Ada"},
		{desc: "required and empty", rule: name, in: "", want: fault.Required},
		{desc: "optional and empty", rule: notes, in: ""},
		{desc: "at the limit in characters", rule: name, in: "ééééé"},
		{desc: "over the limit in characters", rule: name, in: "abcdef", want: fault.TooLong},
		{desc: "10 bytes but 5 characters is within 5 characters", rule: name, in: "ααααα"},
		{desc: "6 characters of 2 bytes are over 5 characters", rule: name, in: "αααααα", want: fault.TooLong},
		{desc: "single line refuses a line break", rule: name, in: "a\nb", want: fault.InvalidValue},
		{desc: "single line refuses a carriage return", rule: name, in: "a\rb", want: fault.InvalidValue},
		{desc: "single line refuses a tab", rule: name, in: "a\tb", want: fault.InvalidValue},
		{desc: "single line refuses NUL", rule: name, in: "a\x00b", want: fault.InvalidValue},
		{desc: "single line refuses DEL", rule: name, in: "a\x7fb", want: fault.InvalidValue},
		{desc: "single line refuses a C1 control after non-ASCII", rule: name, in: "é\u0085", want: fault.InvalidValue},
		{desc: "single line refuses the line separator", rule: name, in: "a\u2028b", want: fault.InvalidValue},
		{desc: "single line takes non-ASCII letters", rule: name, in: "Zoë"},
		{desc: "single line refuses U+202A, a bidirectional embedding", rule: name, in: "ab\u202Ac", want: fault.InvalidValue},
		{desc: "single line refuses U+202B, a bidirectional embedding", rule: name, in: "ab\u202Bc", want: fault.InvalidValue},
		{desc: "single line refuses U+202C, a bidirectional pop", rule: name, in: "ab\u202Cc", want: fault.InvalidValue},
		{desc: "single line refuses U+202D, a bidirectional override", rule: name, in: "ab\u202Dc", want: fault.InvalidValue},
		{desc: "single line refuses U+202E, a bidirectional override", rule: name, in: "ab\u202Ec", want: fault.InvalidValue},
		{desc: "single line refuses U+2066, a bidirectional isolate", rule: name, in: "ab\u2066c", want: fault.InvalidValue},
		{desc: "single line refuses U+2067, a bidirectional isolate", rule: name, in: "ab\u2067c", want: fault.InvalidValue},
		{desc: "single line refuses U+2068, a bidirectional isolate", rule: name, in: "ab\u2068c", want: fault.InvalidValue},
		{desc: "single line refuses U+2069, a bidirectional pop", rule: name, in: "ab\u2069c", want: fault.InvalidValue},
		{desc: "single line takes the marks just outside the overrides", rule: name, in: "a\u202F\u206A"},
		{desc: "single line takes the right-to-left mark", rule: name, in: "ab\u200F"},
		{desc: "single line takes a zero-width joiner", rule: name, in: "a\u200Db"},
		{desc: "single line takes U+FFFD itself", rule: name, in: "a\uFFFD"},
		{desc: "single line refuses bytes that are not UTF-8", rule: name, in: "é\xff", want: fault.InvalidValue},
		{desc: "single line refuses a lone continuation byte", rule: name, in: "a\x80", want: fault.InvalidValue},
		{desc: "single line refuses NUL after non-ASCII", rule: name, in: "é\x00", want: fault.InvalidValue},
		{desc: "multi-line takes line breaks and tabs", rule: notes, in: "a\n\tb\nc"},
		{desc: "multi-line takes line breaks after non-ASCII", rule: notes, in: "é\nb"},
		{desc: "multi-line refuses a carriage return", rule: notes, in: "a\r\nb", want: fault.InvalidValue},
		{desc: "multi-line refuses an escape", rule: notes, in: "a\x1b[31m", want: fault.InvalidValue},
		{desc: "multi-line refuses the paragraph separator", rule: notes, in: "é\u2029", want: fault.InvalidValue},
		{desc: "multi-line counts characters", rule: notes, in: strings.Repeat("é", 21), want: fault.TooLong},
		{desc: "multi-line refuses NUL", rule: notes, in: "a\n\x00", want: fault.InvalidValue},
		{desc: "multi-line refuses a right-to-left override", rule: notes, in: "a\n\u202Eb", want: fault.InvalidValue},
		{desc: "multi-line refuses a first-strong isolate", rule: notes, in: "a\u2068b", want: fault.InvalidValue},
		{desc: "multi-line takes right-to-left text with its marks", rule: notes, in: "שלום\u200F\nعالم\u061C"},
		{desc: "secret under the minimum in characters", rule: password, in: "éé", want: fault.TooShort},
		{desc: "secret at the minimum in characters", rule: password, in: "ééé"},
		{desc: "secret over the limit in bytes", rule: password, in: "éééée", want: fault.TooLong},
		{desc: "secret takes control characters other than NUL", rule: password, in: "a\tb\x1bc"},
		{desc: "secret takes a bidirectional override", rule: password, in: "ab\u202Ec"},
		{desc: "secret refuses NUL, which PostgreSQL cannot store", rule: password, in: "a\tb\x00c", want: fault.InvalidValue},
		{desc: "secret refuses bytes that are not UTF-8", rule: password, in: "abc\xff", want: fault.InvalidValue},
		{desc: "secret takes U+FFFD itself", rule: password, in: "ab\uFFFD"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			field, code := problem(t, func(v *fault.Validation) bool { return tc.rule.Check(v, validate.At("input").Field("f"), tc.in) })
			require.Equal(t, tc.want, code)
			if code != "" {
				require.Equal(t, "input.f", field)
			}
		})
	}
}

func TestRange(t *testing.T) {
	t.Parallel()
	pct := validate.Range[float64]{Min: 0, Max: 100}
	speed := validate.Range[float64]{Min: 0, Max: 10, AboveMin: true}
	qty := validate.Range[int]{Min: 1, Max: 10}
	cases := []struct {
		desc  string
		check func(v *fault.Validation, p validate.Path) bool
		want  fault.ProblemCode
	}{
		{desc: "inside", check: func(v *fault.Validation, p validate.Path) bool { return pct.Check(v, p, 50) }},
		{desc: "at the minimum", check: func(v *fault.Validation, p validate.Path) bool { return pct.Check(v, p, 0) }},
		{desc: "at the maximum", check: func(v *fault.Validation, p validate.Path) bool { return pct.Check(v, p, 100) }},
		{desc: "below", check: func(v *fault.Validation, p validate.Path) bool { return pct.Check(v, p, -0.001) }, want: fault.OutOfRange},
		{desc: "above", check: func(v *fault.Validation, p validate.Path) bool { return pct.Check(v, p, 100.5) }, want: fault.OutOfRange},
		{desc: "NaN", check: func(v *fault.Validation, p validate.Path) bool { return pct.Check(v, p, math.NaN()) }, want: fault.OutOfRange},
		{desc: "+Inf", check: func(v *fault.Validation, p validate.Path) bool { return pct.Check(v, p, math.Inf(1)) }, want: fault.OutOfRange},
		{desc: "-Inf against an unbounded-looking range", check: func(v *fault.Validation, p validate.Path) bool {
			return validate.Range[float64]{Min: -math.MaxFloat64, Max: math.MaxFloat64}.Check(v, p, math.Inf(-1))
		}, want: fault.OutOfRange},
		{desc: "above an excluded minimum", check: func(v *fault.Validation, p validate.Path) bool { return speed.Check(v, p, 0.1) }},
		{desc: "at an excluded minimum", check: func(v *fault.Validation, p validate.Path) bool { return speed.Check(v, p, 0) }, want: fault.OutOfRange},
		{desc: "an integer inside", check: func(v *fault.Validation, p validate.Path) bool { return qty.Check(v, p, 10) }},
		{desc: "an integer below", check: func(v *fault.Validation, p validate.Path) bool { return qty.Check(v, p, 0) }, want: fault.OutOfRange},
		{desc: "absent", check: func(v *fault.Validation, p validate.Path) bool { return pct.CheckOptional(v, p, nil) }},
		{desc: "present and outside", check: func(v *fault.Validation, p validate.Path) bool {
			x := 101.0
			return pct.CheckOptional(v, p, &x)
		}, want: fault.OutOfRange},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, code := problem(t, func(v *fault.Validation) bool { return tc.check(v, validate.At("input.n")) })
			require.Equal(t, tc.want, code)
		})
	}
}

func TestItems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		rule validate.Items
		n    int
		want fault.ProblemCode
	}{
		{desc: "required and none", rule: validate.Items{Required: true, Max: 3}, n: 0, want: fault.Required},
		{desc: "optional and none", rule: validate.Items{Max: 3}, n: 0},
		{desc: "at the maximum", rule: validate.Items{Max: 3}, n: 3},
		{desc: "over the maximum", rule: validate.Items{Required: true, Max: 3}, n: 4, want: fault.TooMany},
		{desc: "no maximum", rule: validate.Items{}, n: 1 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, code := problem(t, func(v *fault.Validation) bool { return tc.rule.Check(v, validate.At("input.gpus"), tc.n) })
			require.Equal(t, tc.want, code)
		})
	}
}

func TestEmail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		in   string
		want fault.ProblemCode
	}{
		{desc: "an address", in: "ada@example.com"},
		{desc: "empty", in: "", want: fault.Required},
		{desc: "no @", in: "ada.example.com", want: fault.InvalidValue},
		{desc: "no dot in the domain", in: "ada@localhost", want: fault.InvalidValue},
		{desc: "a display name", in: "Ada <ada@example.com>", want: fault.InvalidValue},
		{desc: "two addresses", in: "ada@example.com, bob@example.com", want: fault.InvalidValue},
		{desc: "254 bytes", in: strings.Repeat("a", 242) + "@example.com"},
		{desc: "255 bytes", in: strings.Repeat("a", 243) + "@example.com", want: fault.TooLong},
		{desc: "a line break", in: "ada@example.com\nbcc@example.com", want: fault.InvalidValue},
		{desc: "a NUL", in: "ada\x00@example.com", want: fault.InvalidValue},
		{desc: "a NUL at the end", in: "ada@example.com\x00", want: fault.InvalidValue},
		{desc: "a right-to-left override in the local part", in: "ada\u202Emoc@example.com", want: fault.InvalidValue},
		{desc: "an isolate in the domain", in: "ada@exa\u2066mple.com", want: fault.InvalidValue},
		{desc: "a C1 control", in: "ada\u0085@example.com", want: fault.InvalidValue},
		{desc: "bytes that are not UTF-8", in: "ad\xffa@example.com", want: fault.InvalidValue},
		{desc: "a non-ASCII local part", in: "zoë@example.com"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, code := problem(t, func(v *fault.Validation) bool { return validate.Email(v, validate.At("input.email"), tc.in) })
			require.Equal(t, tc.want, code)
		})
	}
}

func TestIdentifier(t *testing.T) {
	t.Parallel()
	id := validate.Identifier{Min: 8, Max: 64}
	cases := []struct {
		desc string
		in   string
		want fault.ProblemCode
	}{
		{desc: "letters, digits, - and _", in: "rig-01_Ab"},
		{desc: "at the minimum", in: "abcdefgh"},
		{desc: "at the maximum", in: strings.Repeat("a", 64)},
		{desc: "empty", in: "", want: fault.InvalidValue},
		{desc: "too short", in: "abcdefg", want: fault.InvalidValue},
		{desc: "too long", in: strings.Repeat("a", 65), want: fault.InvalidValue},
		{desc: "a dot", in: "rig.0001", want: fault.InvalidValue},
		{desc: "a space", in: "rig 0001", want: fault.InvalidValue},
		{desc: "a non-ASCII letter", in: "rigé0001", want: fault.InvalidValue},
		{desc: "a NUL", in: "rig-0001\x00", want: fault.InvalidValue},
		{desc: "a control character", in: "rig\x1b0001", want: fault.InvalidValue},
		{desc: "a right-to-left override", in: "rig-\u202E0001", want: fault.InvalidValue},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, code := problem(t, func(v *fault.Validation) bool { return id.Check(v, validate.At("input.machineId"), tc.in) })
			require.Equal(t, tc.want, code)
		})
	}
}

func TestNotAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 22, 34, 37, 0, time.UTC)
	cases := []struct {
		desc string
		at   time.Time
		want fault.ProblemCode
	}{
		{desc: "in the past", at: now.Add(-time.Hour)},
		{desc: "at the latest", at: now},
		{desc: "after the latest", at: now.Add(time.Nanosecond), want: fault.InFuture},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, code := problem(t, func(v *fault.Validation) bool { return validate.NotAfter(v, validate.At("input.at"), tc.at, now) })
			require.Equal(t, tc.want, code)
		})
	}
}

// Messages name the field by its last name, not by its index.
func TestMessagesNameTheField(t *testing.T) {
	t.Parallel()
	var v fault.Validation
	validate.Text{Required: true}.Check(&v, validate.At("input.gpus").Index(2).Field("uuid"), "")
	validate.Range[int]{Min: 1, Max: 2}.Check(&v, validate.At("input.gpus.0.quantity"), 3)
	validate.Text{MaxRunes: 1}.Check(&v, validate.At("input.gpus").Index(0).Field("throttleReasons").Index(4), "ab")
	require.Equal(t, []fault.Problem{
		{Field: "input.gpus.2.uuid", Code: fault.Required, Message: "uuid is required"},
		{Field: "input.gpus.0.quantity", Code: fault.OutOfRange, Message: "quantity must be between 1 and 2"},
		{Field: "input.gpus.0.throttleReasons.4", Code: fault.TooLong, Message: "throttleReasons must be at most 1 characters"},
	}, v.Problems)
}

// checkGPU is the shape of the fleet's heartbeat check: one path per GPU,
// several fields each.
func checkGPU(v *fault.Validation, i int, uuid string, util, temp float64, reasons []string) {
	gpu := validate.At("input.gpus").Index(i)
	validate.Text{Required: true, MaxRunes: 128}.Check(v, gpu.Field("uuid"), uuid)
	validate.Range[float64]{Min: 0, Max: 100}.Check(v, gpu.Field("utilizationPct"), util)
	validate.Range[float64]{Min: -50, Max: 150}.Check(v, gpu.Field("temperatureC"), temp)
	for j, r := range reasons {
		validate.Text{Required: true, MaxRunes: 128}.Check(v, gpu.Field("throttleReasons").Index(j), r)
	}
}

// A valid input costs no allocation: no path is formatted and no message
// written unless a problem is found. (Email parses the address, which
// allocates; it is not on a hot path.)
func TestValidInputAllocatesNothing(t *testing.T) {
	reasons := []string{"GPU_IDLE", "SW_POWER_CAP"}
	allocs := testing.AllocsPerRun(100, func() {
		var v fault.Validation
		for i := range 8 {
			checkGPU(&v, i, "GPU-8f0e4c6a-1b2c-4d5e-8f90-0123456789ab", 97.5, 64, reasons)
		}
		validate.Identifier{Min: 8, Max: 64}.Check(&v, validate.At("input.machineId"), "rig-0001")
		if len(v.Problems) != 0 {
			t.Fatal(v.Problems)
		}
	})
	require.Zero(t, allocs)
}

func BenchmarkValidGPU(b *testing.B) {
	reasons := []string{"GPU_IDLE"}
	b.ReportAllocs()
	for b.Loop() {
		var v fault.Validation
		checkGPU(&v, 3, "GPU-8f0e4c6a-1b2c-4d5e-8f90-0123456789ab", 97.5, 64, reasons)
	}
}
