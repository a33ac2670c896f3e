package validate

import (
	"strconv"
	"strings"
)

// Path names an input field as clients see it: dot-separated names and
// list indices, for example input.gpus.3.uuid. It is a small value built
// without allocating and formatted only by String, so a check formats it
// only when it reports a problem.
//
// A Path holds a formatted prefix and, unformatted, at most an index, a
// name and another index after it: the shape of the fields of a list's
// entries (input.gpus.3.throttleReasons.7). A longer path formats what it
// has into the prefix as it grows, which allocates; deep paths are for
// forms, not for hot paths.
type Path struct {
	prefix      string
	name        string
	index, elem int
	// has is how much of index, name and elem is set: hasIndex, hasName
	// and hasElem in this order, each implying the ones before it except
	// that a name may come without an index.
	has uint8
}

const (
	hasIndex uint8 = 1 << iota
	hasName
	hasElem
)

// At returns the path of a field named by a formatted path such as
// "input" or "input.email".
func At(path string) Path { return Path{prefix: path} }

// Field returns the path of member name of p.
func (p Path) Field(name string) Path {
	if p.has&(hasName|hasElem) != 0 {
		p = Path{prefix: p.String()}
	}
	p.name = name
	p.has |= hasName
	return p
}

// Index returns the path of element i of the list at p.
func (p Path) Index(i int) Path {
	switch {
	case p.has == 0:
		p.index = i
		p.has = hasIndex
	case p.has&hasName != 0 && p.has&hasElem == 0:
		p.elem = i
		p.has |= hasElem
	default:
		p = Path{prefix: p.String(), index: i, has: hasIndex}
	}
	return p
}

// String formats the path, for example input.gpus.3.uuid.
func (p Path) String() string {
	if p.has == 0 {
		return p.prefix
	}
	var b strings.Builder
	b.Grow(len(p.prefix) + len(p.name) + 12)
	b.WriteString(p.prefix)
	dot := func() {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
	}
	if p.has&hasIndex != 0 {
		dot()
		b.WriteString(strconv.Itoa(p.index))
	}
	if p.has&hasName != 0 {
		dot()
		b.WriteString(p.name)
	}
	if p.has&hasElem != 0 {
		dot()
		b.WriteString(strconv.Itoa(p.elem))
	}
	return b.String()
}

// label is the last name in the path (input.gpus.3.uuid gives uuid, and
// input.gpus.3 gives gpus), for messages.
func (p Path) label() string {
	if p.has&hasName != 0 {
		return p.name
	}
	parts := strings.Split(p.prefix, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		if _, err := strconv.Atoi(parts[i]); err != nil && parts[i] != "" {
			return parts[i]
		}
	}
	return "value"
}
