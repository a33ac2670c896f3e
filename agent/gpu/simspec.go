package gpu

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxSimulatedGPUs bounds one --simulate group and the whole machine: no
// real host has more GPUs than that.
const MaxSimulatedGPUs = 16

// SimSpec is a parsed --simulate value: groups of identical GPUs, in the
// order given, which is also their index order.
type SimSpec []SimGroup

// SimGroup is Count GPUs of one Model.
type SimGroup struct {
	// Count is how many GPUs, 1 to MaxSimulatedGPUs.
	Count int
	// Model is what they are, as LookupModel returns it.
	Model Model
}

// ParseSimSpec parses a --simulate value such as "2xH100,1xL4": comma
// separated COUNTxMODEL groups, MODEL being a key or alias LookupModel
// knows, COUNT between 1 and MaxSimulatedGPUs (and the total no more than
// that). Case and spaces do not matter.
func ParseSimSpec(s string) (SimSpec, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("--simulate: empty; want COUNTxMODEL groups such as 2xH100,1xL4")
	}
	var spec SimSpec
	total := 0
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("--simulate %q: empty group; want COUNTxMODEL groups such as 2xH100,1xL4", s)
		}
		digits := strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' })
		if digits <= 0 {
			return nil, fmt.Errorf("--simulate %q: group %q: want COUNTxMODEL, e.g. 2xH100", s, part)
		}
		countText := part[:digits]
		rest := strings.TrimLeft(part[digits:], " ")
		modelText, found := strings.CutPrefix(rest, "x")
		if !found {
			modelText, found = strings.CutPrefix(rest, "X")
		}
		if !found {
			return nil, fmt.Errorf("--simulate %q: group %q: want COUNTxMODEL, e.g. 2xH100", s, part)
		}
		count, err := strconv.Atoi(countText)
		if err != nil || count < 1 || count > MaxSimulatedGPUs {
			return nil, fmt.Errorf("--simulate %q: group %q: count must be between 1 and %d", s, part, MaxSimulatedGPUs)
		}
		model, ok := LookupModel(modelText)
		if !ok {
			return nil, fmt.Errorf("--simulate %q: group %q: unknown model %q; known: %s",
				s, part, strings.TrimSpace(modelText), strings.Join(ModelAliases(), ", "))
		}
		total += count
		if total > MaxSimulatedGPUs {
			return nil, fmt.Errorf("--simulate %q: %d GPUs in all; at most %d", s, total, MaxSimulatedGPUs)
		}
		spec = append(spec, SimGroup{Count: count, Model: model})
	}
	return spec, nil
}

// String returns the spec in canonical form, e.g. "2xH100,1xL4".
func (s SimSpec) String() string {
	parts := make([]string, len(s))
	for i, g := range s {
		name := g.Model.Key
		if len(g.Model.Aliases) > 0 {
			name = g.Model.Aliases[0]
		}
		parts[i] = fmt.Sprintf("%dx%s", g.Count, name)
	}
	return strings.Join(parts, ",")
}

// Total is the number of GPUs the spec describes.
func (s SimSpec) Total() int {
	n := 0
	for _, g := range s {
		n += g.Count
	}
	return n
}
