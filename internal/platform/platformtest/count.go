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
// except the reads the server makes on its own clock whatever else
// happens: the mail worker's poll of its outbox (every two seconds; call
// DrainMail first, so it has nothing else to do) and a WebSocket's check
// of its session's expiry (once after connection_init, then at the
// expiry), which for a hundred sockets opened just before may still be
// running.
func (r *Statements) Record(fn func()) []string {
	return slices.DeleteFunc(r.queries.Record(fn), background)
}

// background reports whether q is one of those reads: a SELECT of the
// outbox, or of a session's expiry alone.
func background(q string) bool {
	if !strings.HasPrefix(strings.TrimSpace(strings.ToUpper(q)), "SELECT") {
		return false
	}
	return strings.Contains(q, "email_outbox") ||
		strings.Contains(q, `"expires_at" FROM "sessions"`) && !strings.Contains(q, "JOIN")
}

// metricLines returns the lines of the server's GET /metrics.
func (s *Server) metricLines(t testing.TB) []string {
	t.Helper()
	res, err := http.Get(s.URL + "/metrics")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	var lines []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	return lines
}

// Sockets returns the server's gpunex_websocket_connections: the
// GraphQL WebSockets open now, read from GET /metrics.
func (s *Server) Sockets(t testing.TB) float64 {
	t.Helper()
	for _, line := range s.metricLines(t) {
		if v, ok := strings.CutPrefix(line, "gpunex_websocket_connections "); ok {
			n, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err)
			return n
		}
	}
	require.Fail(t, "GET /metrics has no gpunex_websocket_connections")
	return 0
}

// OperationCount returns the server's gpunex_graphql_operations_total of
// operation type typ (query, mutation, subscription), every outcome
// summed, read from GET /metrics. The counter grows once per response
// executed: for a subscription, once per event (or current state)
// executed and encoded, however many sockets it is written to.
func (s *Server) OperationCount(t testing.TB, typ string) float64 {
	t.Helper()
	var total float64
	label := `type="` + typ + `"`
	for _, line := range s.metricLines(t) {
		if !strings.HasPrefix(line, "gpunex_graphql_operations_total{") || !strings.Contains(line, label) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		require.NoError(t, err, "metrics line %q", line)
		total += v
	}
	return total
}
