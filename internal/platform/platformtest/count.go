package platformtest

import (
	"bufio"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store/storetest"
)

// Statements records the SQL statements a server's database runs while a
// Record is in progress, with their text, so a test that bounds what an
// event costs can say which statements it ran when it ran too many.
type Statements struct {
	queries *storetest.Queries
}

// RecordStatements starts watching the statements of the server's
// database (every later statement, transactions included).
func (s *Server) RecordStatements() *Statements {
	return &Statements{queries: storetest.CountQueries(s.Platform.DB)}
}

// Record runs fn and returns the statements run meanwhile, by anyone,
// except the mail worker's poll of its outbox: the worker reads the
// outbox every two seconds whatever else happens (call DrainMail first,
// so it has nothing else to do).
func (r *Statements) Record(fn func()) []string {
	return slices.DeleteFunc(r.queries.Record(fn), mailPoll)
}

// mailPoll reports whether q is the mail worker's periodic read of the
// outbox (a SELECT of email_outbox).
func mailPoll(q string) bool {
	return strings.HasPrefix(strings.TrimSpace(strings.ToUpper(q)), "SELECT") && strings.Contains(q, "email_outbox")
}

// OperationCount returns the server's gpunex_graphql_operations_total of
// operation type typ (query, mutation, subscription), every outcome
// summed, read from GET /metrics. The counter grows once per response
// executed: for a subscription, once per event (or current state)
// executed and encoded, however many sockets it is written to.
func (s *Server) OperationCount(t testing.TB, typ string) float64 {
	t.Helper()
	res, err := http.Get(s.URL + "/metrics")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	var total float64
	label := `type="` + typ + `"`
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "gpunex_graphql_operations_total{") || !strings.Contains(line, label) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		require.NoError(t, err, "metrics line %q", line)
		total += v
	}
	require.NoError(t, sc.Err())
	return total
}
