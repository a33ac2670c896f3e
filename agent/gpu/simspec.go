package gpu

import (
	"fmt"
	"slices"
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
	// Profiles are the group's faults in canonical order (see Profile),
	// without ProfileHealthy; empty for healthy GPUs. Machine-level
	// profiles apply to the whole machine (see SimSpec.MachineProfiles).
	Profiles []Profile
}

// ParseSimSpec parses a --simulate value such as "2xH100,1xL4" or
// "1xH100:throttled,1xL4:slow-disk+ecc-errors": comma separated
// COUNTxMODEL[:PROFILE[+PROFILE…]] groups, MODEL being a key or alias
// LookupModel knows, COUNT between 1 and MaxSimulatedGPUs (and the total no
// more than that), PROFILE one of Profiles. Case and spaces do not matter.
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
		part, profileText, hasProfiles := strings.Cut(part, ":")
		part = strings.TrimSpace(part)
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
		var groupProfiles []Profile
		if hasProfiles {
			groupProfiles, err = parseProfiles(profileText)
			if err != nil {
				return nil, fmt.Errorf("--simulate %q: group %q: %w", s, strings.TrimSpace(part)+":"+strings.TrimSpace(profileText), err)
			}
		}
		total += count
		if total > MaxSimulatedGPUs {
			return nil, fmt.Errorf("--simulate %q: %d GPUs in all; at most %d", s, total, MaxSimulatedGPUs)
		}
		spec = append(spec, SimGroup{Count: count, Model: model, Profiles: groupProfiles})
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
		if len(g.Profiles) > 0 {
			names := make([]string, len(g.Profiles))
			for j, p := range g.Profiles {
				names[j] = string(p)
			}
			parts[i] += ":" + strings.Join(names, "+")
		}
	}
	return strings.Join(parts, ",")
}

// MachineProfiles are the machine-level profiles any group names
// (ProfileSlowDisk, ProfileSlowNetwork), in canonical order.
func (s SimSpec) MachineProfiles() []Profile {
	var out []Profile
	for _, p := range profiles {
		for _, g := range s {
			if p.MachineLevel() && slices.Contains(g.Profiles, p) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// parseProfiles reads PROFILE[+PROFILE…]: known names, none twice, in
// canonical order, ProfileHealthy dropped (it is the absence of the
// others).
func parseProfiles(text string) ([]Profile, error) {
	seen := map[Profile]bool{}
	for name := range strings.SplitSeq(text, "+") {
		p, ok := parseProfile(name)
		switch {
		case strings.TrimSpace(name) == "":
			return nil, fmt.Errorf("empty profile; want PROFILE[+PROFILE…], known: %s", profileNames())
		case !ok:
			return nil, fmt.Errorf("unknown profile %q; known: %s", strings.TrimSpace(name), profileNames())
		case seen[p]:
			return nil, fmt.Errorf("profile %q given twice", p)
		}
		seen[p] = true
	}
	var out []Profile
	for _, p := range profiles {
		if seen[p] && p != ProfileHealthy {
			out = append(out, p)
		}
	}
	return out, nil
}

// Total is the number of GPUs the spec describes.
func (s SimSpec) Total() int {
	n := 0
	for _, g := range s {
		n += g.Count
	}
	return n
}
