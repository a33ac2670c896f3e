package platform_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/benchtest"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/presence"
)

// latencies collects per-request durations across parallel workers.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

func (l *latencies) pct(p float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	slices.Sort(l.d)
	return l.d[min(len(l.d)-1, int(float64(len(l.d))*p))]
}

type hbResult struct {
	nsPerOp  float64
	p50, p99 time.Duration
}

// benchMachines heartbeat in BenchmarkHeartbeat (benchMachinesShort
// at the smallest size).
const (
	benchMachines      = 64
	benchMachinesShort = 4
)

// heartbeatRequest is the POST runHeartbeats sends: body, as gpunex-agent
// sends it, with token (if any) as the bearer.
func heartbeatRequest(url, token string, body []byte) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/graphql-response+json, application/json") // as gpunex-agent sends
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// postOnce posts body to url with token, reads the answer and adds its
// latency to lat; false (the error reported to b) when it failed or was
// not 200.
func postOnce(b *testing.B, client *http.Client, url, token string, body []byte, lat *latencies) bool {
	start := time.Now()
	res, err := client.Do(heartbeatRequest(url, token, body))
	if err != nil {
		b.Error(err)
		return false
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	lat.add(time.Since(start))
	if res.StatusCode != http.StatusOK {
		b.Errorf("status %d", res.StatusCode)
		return false
	}
	return true
}

// runHeartbeats posts the heartbeat bodies round robin from 16 parallel
// clients and measures latency.
func runHeartbeats(b *testing.B, url, token string, bodies [][]byte) hbResult {
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var lat latencies
	var next int64
	var mu sync.Mutex
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			body := bodies[next%int64(len(bodies))]
			next++
			mu.Unlock()
			if !postOnce(b, client, url, token, body, &lat) {
				return
			}
		}
	})
	b.StopTimer()
	r := hbResult{nsPerOp: float64(b.Elapsed().Nanoseconds()) / float64(b.N), p50: lat.pct(0.50), p99: lat.pct(0.99)}
	b.ReportMetric(float64(r.p50.Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(r.p99.Microseconds())/1000, "p99_ms")
	return r
}

// agentBeat is a heartbeat as gpunex-agent sends it: every telemetry field
// and the last 30 utilisation samples of each GPU.
func agentBeat(machineID string, n int) map[string]any {
	history := make([]float64, 30)
	for i := range history {
		history[i] = float64(40 + i)
	}
	var gpus []any
	for i := range n {
		gpus = append(gpus, map[string]any{
			"uuid": fmt.Sprintf("GPU-%s-%d", machineID, i), "utilizationPct": 71.0, "memoryUsedBytes": 6.1e10,
			"temperatureC": 64.0, "powerDrawW": 512.5, "smClockMHz": 1980, "throttleReasons": []string{"sw_power_cap"},
			"eccCorrected": 0.0, "eccUncorrected": 0.0, "recentUtilizationPct": history,
		})
	}
	return map[string]any{"machineId": machineID, "gpus": gpus}
}

// bareHeartbeatHandler is the baseline: net/http decoding the same JSON
// heartbeat into the protocol's types, writing the same presence value
// (the telemetry the fleet stores), and answering a small JSON; no
// GraphQL, no authentication.
func bareHeartbeatHandler(store presence.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Variables protocol.HeartbeatVariables `json:"variables"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		now := time.Now().UTC()
		gpus := req.Variables.Input.Gpus
		value, _ := json.Marshal(map[string]any{"at": now, "g": gpus})
		if _, err := store.Touch(r.Context(), "bare:"+req.Variables.Input.MachineID, value, 30*time.Second); err != nil {
			http.Error(w, "presence", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":{"heartbeat":{"accepted":true,"status":"ONLINE","intervalSeconds":10,"commands":[],"userErrors":[]}}}`)
	})
}

// BenchmarkHeartbeat measures heartbeats through the full GraphQL stack
// (auth, rate limit, validation, presence write) against a bare handler
// doing the same presence write, on each stack, and counts the SQL writes
// and bus publishes per heartbeat in steady state. Targets: throughput
// ≥ 0.8× bare, p99 ≤ 1.3× bare, ≤ 0.02 writes and publishes per heartbeat.
//
// "gpunex" sends what gpunex-agent sends (its document, which the server
// prepares); "gpunex-generic" sends the same operation with one more
// space in its text, so gqlgen's generic executor answers it.
func BenchmarkHeartbeat(b *testing.B) {
	for _, stack := range platformtest.Stacks {
		b.Run(stack.Name, func(b *testing.B) {
			s := platformtest.Start(b, stack, platformtest.Options{Fleet: fleet.Config{RatePerSecond: 1e9, Burst: 1e9, TokenRatePerSecond: 1e9, TokenBurst: 1e9}})
			p := s.NewProvider(b, "bench")
			agent := s.NewAPIClient(b, p.AgentToken)
			var bodies, generic [][]byte
			for i := range benchtest.Sized(benchMachines, benchMachinesShort) {
				uid := fmt.Sprintf("bench-machine-%04d", i)
				agent.MustDo(nil, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3",
					"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3")})
				agent.MustDo(nil, heartbeat, map[string]any{"i": beatInput(uid, 50, 8)}) // the online transition
				vars := map[string]any{"input": agentBeat(uid, 8)}
				body, _ := json.Marshal(map[string]any{"operationName": "Heartbeat", "query": protocol.HeartbeatMutation, "variables": vars})
				bodies = append(bodies, body)
				body, _ = json.Marshal(map[string]any{"operationName": "Heartbeat", "query": protocol.HeartbeatMutation + " ", "variables": vars})
				generic = append(generic, body)
			}

			var bare hbResult
			b.Run("bare", func(b *testing.B) {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					b.Fatal(err)
				}
				srv := &http.Server{Handler: bareHeartbeatHandler(s.Platform.Presence)}
				go func() { _ = srv.Serve(ln) }()
				defer srv.Close()
				bare = runHeartbeats(b, "http://"+ln.Addr().String()+"/graphql", "", bodies)
			})
			for _, run := range []struct {
				name   string
				bodies [][]byte
			}{{"gpunex", bodies}, {"gpunex-generic", generic}} {
				b.Run(run.name, func(b *testing.B) {
					s.DrainMail(b) // the mail worker's writes are not the heartbeats'
					writes, pubs := s.Platform.DB.Writes(), s.Bus.Publishes()
					r := runHeartbeats(b, s.URL+"/graphql", p.AgentToken, run.bodies)
					b.ReportMetric(float64(s.Platform.DB.Writes()-writes)/float64(b.N), "sql_writes/hb")
					b.ReportMetric(float64(s.Bus.Publishes()-pubs)/float64(b.N), "publishes/hb")
					if bare.nsPerOp > 0 {
						b.ReportMetric(bare.nsPerOp/r.nsPerOp, "throughput_x_bare")
						b.ReportMetric(float64(r.p99)/float64(bare.p99), "p99_x_bare")
					}
				})
			}
		})
	}
}
