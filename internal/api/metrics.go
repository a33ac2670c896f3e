package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus series, on a registry of its own so
// tests and several servers in one process never collide.
type metrics struct {
	registry   *prometheus.Registry
	requests   *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	operations *prometheus.CounterVec
	// operationsOK are the operations' usual series, by type, looked up
	// once (a lookup hashes its labels under a lock).
	operationsOK map[string]prometheus.Counter
	prepared     *prometheus.CounterVec
	websockets   prometheus.Gauge
	// websocketsRefused counts sockets and operations refused by a cap
	// (reason: address, user, subscriptions); websocketsEnded the sockets
	// closed because their session or agent token ended.
	websocketsRefused *prometheus.CounterVec
	websocketsEnded   prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gpunex_http_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gpunex_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 12),
		}, []string{"route"}),
		operations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gpunex_graphql_operations_total", Help: "GraphQL operations by type and outcome (ok or the first error code).",
		}, []string{"type", "outcome"}),
		prepared: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gpunex_graphql_prepared_total", Help: "Requests for a prepared document by operation and path: prepared, or generic when the variables needed the generic executor.",
		}, []string{"operation", "path"}),
		websockets: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gpunex_websocket_connections", Help: "Open GraphQL WebSocket connections.",
		}),
		websocketsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gpunex_websocket_refused_total", Help: "WebSockets and operations on them refused by a cap, by reason (address, user, subscriptions).",
		}, []string{"reason"}),
		websocketsEnded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gpunex_websocket_session_ended_total", Help: "WebSockets closed (4403) because their session or agent token ended.",
		}),
	}
	m.operationsOK = map[string]prometheus.Counter{}
	for _, typ := range []string{"query", "mutation", "subscription"} {
		m.operationsOK[typ] = m.operations.WithLabelValues(typ, "ok")
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.duration, m.operations, m.prepared, m.websockets, m.websocketsRefused, m.websocketsEnded,
	)
	return m
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// instrument counts and times requests of one route. WebSocket upgrades
// pass through untouched (the hijacker must stay reachable).
func (m *metrics) instrument(route string, next http.Handler) http.Handler {
	// The route's series are looked up once, the usual answer's too: a
	// lookup hashes its labels under a lock on every request.
	duration, ok := m.duration.WithLabelValues(route), m.requests.WithLabelValues(route, "200")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerValue(r.Header, "Upgrade") != "" {
			m.requests.WithLabelValues(route, "101").Inc()
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		if rec.status == http.StatusOK {
			ok.Inc()
		} else {
			m.requests.WithLabelValues(route, strconv.Itoa(rec.status)).Inc()
		}
		duration.Observe(time.Since(start).Seconds())
	})
}

// countOperations is a gqlgen response middleware that counts operations.
func (m *metrics) countOperations(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	m.countResponse(ctx, resp)
	return resp
}

// countResponse counts the operation of ctx, answered resp.
func (m *metrics) countResponse(ctx context.Context, resp *graphql.Response) {
	typ := "unknown"
	if graphql.HasOperationContext(ctx) {
		if oc := graphql.GetOperationContext(ctx); oc != nil && oc.Operation != nil {
			typ = string(oc.Operation.Operation)
		}
	}
	outcome := "ok"
	if resp != nil && len(resp.Errors) > 0 {
		outcome = "error"
		if c, ok := resp.Errors[0].Extensions["code"].(string); ok {
			outcome = c
		}
	}
	m.countOperation(typ, outcome)
}

// countOperation counts one operation of type typ with its outcome.
func (m *metrics) countOperation(typ, outcome string) {
	if c := m.operationsOK[typ]; c != nil && outcome == "ok" {
		c.Inc()
		return
	}
	m.operations.WithLabelValues(typ, outcome).Inc()
}
