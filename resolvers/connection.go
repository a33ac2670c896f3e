package resolvers

import "github.com/gpunex/gpunex/graph/model"

// defaultPageSize is the schema's default for a connection's first
// argument; it also stands when a client passes first: null.
const defaultPageSize = 20

// pageArgs reads a connection's first and after arguments for a service's
// List.
func pageArgs(first *int, after *string) (n int, cursor string) {
	n = defaultPageSize
	if first != nil {
		n = *first
	}
	if after != nil {
		cursor = *after
	}
	return n, cursor
}

// connection maps a page of nodes to a connection's edges, each made by
// edge with its node's cursor, and its page info, whose end cursor is the
// last edge's.
func connection[N, E any](nodes []N, hasNextPage bool, cursor func(N) string, edge func(cursor string, node N) E) ([]E, *model.PageInfo) {
	edges := make([]E, 0, len(nodes))
	info := &model.PageInfo{HasNextPage: hasNextPage}
	for i, node := range nodes {
		c := cursor(node)
		edges = append(edges, edge(c, node))
		if i == len(nodes)-1 {
			info.EndCursor = &c
		}
	}
	return edges, info
}
