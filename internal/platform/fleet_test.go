package platform_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/models"
)

const registerMachine = `mutation($i: RegisterMachineInput!) {
  registerMachine(input: $i) { machine { id machineId status offlineReason simulated driverVersion gpus { uuid name model { key } } } heartbeatIntervalSeconds userErrors { field code } }
}`

const heartbeat = `mutation($i: HeartbeatInput!) {
  heartbeat(input: $i) { accepted status intervalSeconds commands { id kind payload } userErrors { field code message } }
}`

const statusSubscription = `subscription { machineStatusChanged { initial kind machine { id machineId status offlineReason lastHeartbeatAt gpus { uuid telemetry { utilizationPct recentUtilizationPct } } } } }`

func inventory(machineID string, gpus ...string) map[string]any {
	var list []any
	for i, name := range gpus {
		list = append(list, map[string]any{
			"uuid": fmt.Sprintf("GPU-%s-%d", machineID, i), "index": i, "name": name, "vramBytes": 85899345920.0,
			"driverVersion": "550.54.15", "cudaDriverVersion": "12.4", "simulated": true,
		})
	}
	return map[string]any{"machineId": machineID, "hostname": "host-" + machineID, "agentVersion": "0.1.0", "gpus": list}
}

func beatInput(machineID string, util float64, n int) map[string]any {
	var gpus []any
	for i := range n {
		gpus = append(gpus, map[string]any{"uuid": fmt.Sprintf("GPU-%s-%d", machineID, i), "utilizationPct": util, "temperatureC": 40.0,
			"recentUtilizationPct": []float64{1, 2, util}})
	}
	return map[string]any{"machineId": machineID, "gpus": gpus}
}

type statusEvent struct {
	Data struct {
		MachineStatusChanged struct {
			Initial bool
			Kind    string
			Machine struct {
				ID, MachineID, Status string
				OfflineReason         *string
				LastHeartbeatAt       *string
				Gpus                  []struct {
					UUID      string
					Telemetry *struct {
						UtilizationPct       *float64
						RecentUtilizationPct []float64
					}
				}
			}
		}
	}
	Errors []any
}

func nextStatus(t *testing.T, ws *platformtest.WS) statusEvent {
	t.Helper()
	m := ws.MustRead(10 * time.Second)
	require.Equal(t, "next", m.Type, "%s", m.Payload)
	var ev statusEvent
	require.NoError(t, json.Unmarshal(m.Payload, &ev))
	require.Empty(t, ev.Errors)
	return ev
}

func TestMachinesGoOnlineAndOfflineLiveWithoutSQLInSteadyState(t *testing.T) {
	t.Parallel()
	// Telemetry samples every hour: this test follows the transitions,
	// and heartbeats publish nothing in steady state between samples
	// (TestTelemetryArrivesOverTheOneSubscriptionThrottled follows them).
	opts := platformtest.Options{Fleet: fleet.Config{Interval: 500 * time.Millisecond, TelemetryEvery: time.Hour}}
	platformtest.Each(t, opts, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "fleet")
		agent := s.NewAPIClient(t, p.AgentToken)
		uid := "machine-" + strings.ReplaceAll(platformtest.UniqueEmail("m")[2:10], "@", "")

		var reg struct {
			RegisterMachine struct {
				Machine *struct {
					ID, MachineID, Status string
					OfflineReason         *string
					Simulated             bool
					DriverVersion         *string
					Gpus                  []struct {
						UUID, Name string
						Model      *struct{ Key string }
					}
				}
				HeartbeatIntervalSeconds int
				UserErrors               []userError
			}
		}
		agent.MustDo(&reg, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA H100 80GB HBM3", "NVIDIA L4")})
		require.Empty(t, reg.RegisterMachine.UserErrors)
		m := reg.RegisterMachine.Machine
		require.Equal(t, "OFFLINE", m.Status)
		require.Equal(t, "NEVER_SEEN", *m.OfflineReason)
		require.True(t, m.Simulated, "simulated hardware is marked all the way to the database")
		require.Equal(t, "H100_SXM_80GB", m.Gpus[0].Model.Key)
		require.Equal(t, "L4_24GB", m.Gpus[1].Model.Key)
		require.Equal(t, 1, reg.RegisterMachine.HeartbeatIntervalSeconds)

		// Registering again is idempotent; a GPU that disappears is recorded.
		agent.MustDo(&reg, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA H100 80GB HBM3")})
		require.Equal(t, m.ID, reg.RegisterMachine.Machine.ID)
		require.Len(t, reg.RegisterMachine.Machine.Gpus, 1)
		n, err := s.Platform.DB.NewSelect().Table("machine_inventory_changes").Where("change = 'REMOVED'").Count(t.Context())
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		require.EqualValues(t, 1, countRows(t, s, "machines"))

		// The provider's dashboard subscribes: current state first.
		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(map[string]any{"authorization": "Bearer " + p.User.Token})
		ws.Subscribe("1", statusSubscription, nil)
		ev := nextStatus(t, ws)
		require.True(t, ev.Data.MachineStatusChanged.Initial)
		require.Equal(t, "INITIAL", ev.Data.MachineStatusChanged.Kind)
		require.Equal(t, "OFFLINE", ev.Data.MachineStatusChanged.Machine.Status)

		// The first heartbeat is a transition: Online arrives live.
		var hb struct {
			Heartbeat struct {
				Accepted   bool
				Status     *string
				UserErrors []userError
			}
		}
		work := watchHeartbeats(t, s)
		agent.MustDo(&hb, heartbeat, map[string]any{"i": beatInput(uid, 42, 1)})
		require.True(t, hb.Heartbeat.Accepted)
		require.Positive(t, work.writes.Load(), "the transition is written, and counted as the heartbeat's")
		require.Positive(t, work.publishes.Load(), "the transition is published, and counted as the heartbeat's")
		ev = nextStatus(t, ws)
		require.False(t, ev.Data.MachineStatusChanged.Initial)
		require.Equal(t, "STATUS", ev.Data.MachineStatusChanged.Kind)
		require.Equal(t, "ONLINE", ev.Data.MachineStatusChanged.Machine.Status)
		require.NotNil(t, ev.Data.MachineStatusChanged.Machine.LastHeartbeatAt)
		require.InDelta(t, 42, *ev.Data.MachineStatusChanged.Machine.Gpus[0].Telemetry.UtilizationPct, 0.001)

		// Steady state: heartbeats write no SQL row and, within a telemetry
		// interval of the transition that showed their telemetry, publish
		// nothing.
		// Counted are the heartbeats' own (background work writes on its
		// own schedule).
		work.writes.Store(0)
		work.publishes.Store(0)
		for i := range 20 {
			agent.MustDo(&hb, heartbeat, map[string]any{"i": beatInput(uid, float64(50+i), 1)})
			require.Equal(t, "ONLINE", *hb.Heartbeat.Status)
		}
		require.Zero(t, work.writes.Load(), "SQL writes in steady state")
		require.Zero(t, work.publishes.Load(), "bus publishes in steady state")

		// The dashboard query reads the same state, with live telemetry.
		var mp struct {
			MyProvider struct {
				Machines []struct {
					Status string
					Gpus   []struct {
						Telemetry *struct {
							UtilizationPct       *float64
							RecentUtilizationPct []float64
						}
					}
				}
			}
		}
		p.User.MustDo(&mp, `{ myProvider { machines { status gpus { telemetry { utilizationPct recentUtilizationPct } } } } }`, nil)
		require.Equal(t, "ONLINE", mp.MyProvider.Machines[0].Status)
		require.InDelta(t, 69, *mp.MyProvider.Machines[0].Gpus[0].Telemetry.UtilizationPct, 0.001)
		require.Equal(t, []float64{1, 2, 69}, mp.MyProvider.Machines[0].Gpus[0].Telemetry.RecentUtilizationPct)

		// A planned stop goes offline at once, marked planned.
		in := beatInput(uid, 0, 1)
		in["goingOffline"] = true
		agent.MustDo(&hb, heartbeat, map[string]any{"i": in})
		ev = nextStatus(t, ws)
		require.Equal(t, "OFFLINE", ev.Data.MachineStatusChanged.Machine.Status)
		require.Equal(t, "PLANNED", *ev.Data.MachineStatusChanged.Machine.OfflineReason)

		// Back online, then silence: the sweeper marks it offline, unplanned.
		agent.MustDo(&hb, heartbeat, map[string]any{"i": beatInput(uid, 10, 1)})
		ev = nextStatus(t, ws)
		require.Equal(t, "ONLINE", ev.Data.MachineStatusChanged.Machine.Status)
		ev = nextStatus(t, ws)
		require.Equal(t, "OFFLINE", ev.Data.MachineStatusChanged.Machine.Status)
		require.Equal(t, "UNPLANNED", *ev.Data.MachineStatusChanged.Machine.OfflineReason)

		// Every transition is an uptime interval, planned apart from unplanned.
		var intervals []models.MachineStatusInterval
		require.NoError(t, s.Platform.DB.NewSelect().Model(&intervals).Where("machine_id = ?", m.ID).OrderExpr("id").Scan(t.Context()))
		var got []string
		for _, iv := range intervals {
			r := ""
			if iv.Reason != nil {
				r = "/" + string(*iv.Reason)
			}
			got = append(got, string(iv.Status)+r)
		}
		require.Equal(t, []string{"OFFLINE/NEVER_SEEN", "ONLINE", "OFFLINE/PLANNED", "ONLINE", "OFFLINE/UNPLANNED"}, got)
		for _, iv := range intervals[:len(intervals)-1] {
			require.NotNil(t, iv.EndedAt, "closed intervals have an end")
		}
	})
}

func TestAgentTokensOnlyReachTheirOwnProvidersMachines(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		alice := s.NewProvider(t, "alice")
		bob := s.NewProvider(t, "bob")
		aliceAgent, bobAgent := s.NewAPIClient(t, alice.AgentToken), s.NewAPIClient(t, bob.AgentToken)
		uid := "alice-machine-0001"
		aliceAgent.MustDo(nil, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA L4")})

		r := bobAgent.Do(registerMachine, map[string]any{"i": inventory(uid, "NVIDIA L4")})
		require.Equal(t, []string{"FORBIDDEN"}, r.Codes(), "a machine id owned by another provider is refused")
		// Issue 9 point 9: another provider's machine and one that does
		// not exist get the same answer.
		r = bobAgent.Do(heartbeat, map[string]any{"i": beatInput(uid, 1, 1)})
		theirs := r.Errors
		require.Equal(t, []string{"NOT_FOUND"}, r.Codes())
		r = bobAgent.Do(heartbeat, map[string]any{"i": beatInput("never-registered-1", 1, 1)})
		require.Equal(t, []string{"NOT_FOUND"}, r.Codes())
		require.Equal(t, theirs[0].Message, r.Errors[0].Message)

		// A user session is not an agent.
		r = alice.User.Do(heartbeat, map[string]any{"i": beatInput(uid, 1, 1)})
		require.Equal(t, []string{"UNAUTHENTICATED"}, r.Codes())

		// Bob's dashboard never shows Alice's machine.
		var mp struct {
			MyProvider struct{ Machines []struct{ MachineID string } }
		}
		bob.User.MustDo(&mp, `{ myProvider { machines { machineId } } }`, nil)
		require.Empty(t, mp.MyProvider.Machines)

		// A customer cannot subscribe to machine status.
		c := s.NewAPIClient(t, "")
		_, tok := c.SignUp(platformtest.UniqueEmail("cust"), "correct horse battery", "Cus")
		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(map[string]any{"authorization": "Bearer " + tok})
		ws.Subscribe("1", statusSubscription, nil)
		m := ws.MustRead(5 * time.Second)
		require.Contains(t, string(m.Payload), "FORBIDDEN")
	})
}

func TestMalformedTelemetryIsRejectedAndChangesNothing(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "tele")
		agent := s.NewAPIClient(t, p.AgentToken)
		uid := "tele-machine-0001"
		agent.MustDo(nil, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA L4")})
		set := func(f func(g map[string]any)) map[string]any {
			in := beatInput(uid, 10, 1)
			f(in["gpus"].([]any)[0].(map[string]any))
			return in
		}
		many := make([]any, 65)
		for i := range many {
			many[i] = map[string]any{"uuid": fmt.Sprintf("GPU-x-%d", i)}
		}
		cases := []struct {
			desc  string
			input map[string]any
			field string
		}{
			{"negative utilisation", set(func(g map[string]any) { g["utilizationPct"] = -1 }), "input.gpus.0.utilizationPct"},
			{"utilisation over 100", set(func(g map[string]any) { g["utilizationPct"] = 250 }), "input.gpus.0.utilizationPct"},
			{"absurd temperature", set(func(g map[string]any) { g["temperatureC"] = 5000 }), "input.gpus.0.temperatureC"},
			{"negative power", set(func(g map[string]any) { g["powerDrawW"] = -3 }), "input.gpus.0.powerDrawW"},
			{"oversized sample history", set(func(g map[string]any) { g["recentUtilizationPct"] = make([]float64, 500) }), "input.gpus.0.recentUtilizationPct"},
			{"oversized GPU list", map[string]any{"machineId": uid, "gpus": many}, "input.gpus"},
			{"malformed machine id", map[string]any{"machineId": "x", "gpus": []any{}}, "input.machineId"},
			{"sample from the future", map[string]any{"machineId": uid, "gpus": []any{}, "at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}, "input.at"},
		}
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				var hb struct {
					Heartbeat struct {
						Accepted   bool
						UserErrors []userError
					}
				}
				agent.MustDo(&hb, heartbeat, map[string]any{"i": tc.input})
				require.False(t, hb.Heartbeat.Accepted)
				require.NotEmpty(t, hb.Heartbeat.UserErrors)
				require.Equal(t, tc.field, hb.Heartbeat.UserErrors[0].Field)
			})
		}
		var mp struct {
			MyProvider struct{ Machines []struct{ Status string } }
		}
		p.User.MustDo(&mp, `{ myProvider { machines { status } } }`, nil)
		require.Equal(t, "OFFLINE", mp.MyProvider.Machines[0].Status, "rejected heartbeats change nothing")
	})
}

func TestHeartbeatsAreRateLimitedPerMachine(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{Fleet: fleet.Config{RatePerSecond: 0.001, Burst: 3}})
	p := s.NewProvider(t, "rate")
	agent := s.NewAPIClient(t, p.AgentToken)
	uid := "rate-machine-0001"
	agent.MustDo(nil, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA L4")})
	for range 3 {
		agent.MustDo(nil, heartbeat, map[string]any{"i": beatInput(uid, 1, 1)})
	}
	r := agent.Do(heartbeat, map[string]any{"i": beatInput(uid, 1, 1)})
	require.Equal(t, []string{"RATE_LIMITED"}, r.Codes())
}

func TestQueuedCommandsRideTheNextHeartbeatOnAnyReplica(t *testing.T) {
	t.Parallel()
	stack := platformtest.Stacks[1]
	a := platformtest.Start(t, stack, platformtest.Options{})
	b := platformtest.Start(t, stack, platformtest.Options{DatabaseURL: a.DatabaseURL, RedisURL: a.RedisURL, RedisPrefix: a.RedisPrefix})
	p := a.NewProvider(t, "cmd")
	agentA, agentB := a.NewAPIClient(t, p.AgentToken), b.NewAPIClient(t, p.AgentToken)
	uid := "cmd-machine-00001"
	var reg struct {
		RegisterMachine struct{ Machine struct{ ID string } }
	}
	agentA.MustDo(&reg, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA L4")})
	agentB.MustDo(nil, heartbeat, map[string]any{"i": beatInput(uid, 1, 1)})

	id := userID(t, reg.RegisterMachine.Machine.ID)
	_, err := a.Platform.Fleet.Enqueue(t.Context(), id, protocol.CommandRunBenchmark, map[string]any{"reason": "first connection"})
	require.NoError(t, err)
	type command struct{ Kind, Payload string }
	var hb struct {
		Heartbeat struct{ Commands []command }
	}
	// The platform's own first benchmark (a RUN_BENCHMARK with its run id)
	// may ride the same beat as the command queued here, or an earlier
	// one, depending on when replica B heard of each: CI once saw both in
	// one beat, and a wait for exactly one command then never ended.
	ours := func() []command {
		var out []command
		for _, c := range hb.Heartbeat.Commands {
			var p map[string]any
			require.NoError(t, json.Unmarshal([]byte(c.Payload), &p))
			if _, dispatched := p["runId"]; !dispatched {
				out = append(out, c)
			}
		}
		return out
	}
	await.True(t, func() bool {
		agentB.MustDo(&hb, heartbeat, map[string]any{"i": beatInput(uid, 1, 1)})
		return len(ours()) > 0
	}, "replica B learns of the command through the bus")
	got := ours()
	require.Len(t, got, 1)
	require.Equal(t, "RUN_BENCHMARK", got[0].Kind)
	require.JSONEq(t, `{"reason":"first connection"}`, got[0].Payload)
	agentB.MustDo(&hb, heartbeat, map[string]any{"i": beatInput(uid, 1, 1)})
	require.Empty(t, ours(), "delivered once")
}

func TestHeartbeatThroughReplicaBReachesDashboardOnReplicaA(t *testing.T) {
	t.Parallel()
	stack := platformtest.Stacks[1]
	a := platformtest.Start(t, stack, platformtest.Options{})
	b := platformtest.Start(t, stack, platformtest.Options{DatabaseURL: a.DatabaseURL, RedisURL: a.RedisURL, RedisPrefix: a.RedisPrefix})
	p := a.NewProvider(t, "replicas")
	uid := "replica-machine-01"
	agentB := b.NewAPIClient(t, p.AgentToken)
	agentB.MustDo(nil, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA H100 80GB HBM3")})

	ws, _, err := a.DialWS(t, nil)
	require.NoError(t, err)
	ws.Init(map[string]any{"authorization": "Bearer " + p.User.Token})
	ws.Subscribe("1", statusSubscription, nil)
	require.True(t, nextStatus(t, ws).Data.MachineStatusChanged.Initial)

	agentB.MustDo(nil, heartbeat, map[string]any{"i": beatInput(uid, 77, 1)})
	ev := nextStatus(t, ws)
	require.Equal(t, "ONLINE", ev.Data.MachineStatusChanged.Machine.Status)
	require.InDelta(t, 77, *ev.Data.MachineStatusChanged.Machine.Gpus[0].Telemetry.UtilizationPct, 0.001, "A reads B's telemetry from Redis")
}

func TestARevokedAgentTokenStopsOnEveryReplica(t *testing.T) {
	t.Parallel()
	stack := platformtest.Stacks[1]
	a := platformtest.Start(t, stack, platformtest.Options{})
	b := platformtest.Start(t, stack, platformtest.Options{DatabaseURL: a.DatabaseURL, RedisURL: a.RedisURL, RedisPrefix: a.RedisPrefix})
	p := a.NewProvider(t, "revoke")
	uid := "revoke-machine-01"
	agentA, agentB := a.NewAPIClient(t, p.AgentToken), b.NewAPIClient(t, p.AgentToken)
	agentA.MustDo(nil, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA L4")})
	agentB.MustDo(nil, heartbeat, map[string]any{"i": beatInput(uid, 1, 1)}) // B now trusts the token

	var mp struct {
		MyProvider struct{ AgentTokens []struct{ ID string } }
	}
	p.User.MustDo(&mp, `{ myProvider { agentTokens { id } } }`, nil)
	p.User.MustDo(nil, `mutation($id: ID!) { revokeAgentToken(id: $id) { agentToken { revokedAt } } }`, map[string]any{"id": mp.MyProvider.AgentTokens[0].ID})

	r := agentA.Do(heartbeat, map[string]any{"i": beatInput(uid, 1, 1)})
	require.Equal(t, []string{"UNAUTHENTICATED"}, r.Codes(), "at once on the replica that revoked it")
	await.True(t, func() bool {
		return agentB.Do(heartbeat, map[string]any{"i": beatInput(uid, 1, 1)}).Status == 401
	}, "and on the other replica through the bus")
}

func TestARedisRestartDoesNotLeaveTheFleetWrong(t *testing.T) {
	t.Parallel()
	redisSrv := redistest.Start(t, 0)
	// Presence expires on Redis's clock, so this test runs on real time:
	// a 1 s interval makes the grace 3 s, which a heartbeat sent every
	// 100 ms misses only if this process stalls for 3 s (at 300 ms, a
	// make test at load 11 recorded a false outage).
	s := platformtest.Start(t, platformtest.Stacks[1], platformtest.Options{
		RedisURL: redisSrv.URL(), Fleet: fleet.Config{Interval: time.Second},
	})
	p := s.NewProvider(t, "restart")
	agent := s.NewAPIClient(t, p.AgentToken)
	// uid heartbeats for the whole test; two control machines fall silent,
	// one before the restart and one at it. The sweeper marking a control
	// offline is the event that shows it swept, trusting presence, with
	// the heartbeating machine's key to read: no wall-clock wait.
	uid, before, at := "restart-machine-1", "restart-control-before", "restart-control-at"
	for _, m := range []string{uid, before, at} {
		agent.MustDo(nil, registerMachine, map[string]any{"i": inventory(m, "NVIDIA L4")})
		agent.MustDo(nil, heartbeat, map[string]any{"i": beatInput(m, 5, 1)})
	}

	// uid and the second control heartbeat every 100ms, riding out errors
	// while Redis is down, as the real agent does; the control stops at
	// the restart.
	var restarted atomic.Bool
	stop := make(chan struct{})
	done := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }); <-done }
	t.Cleanup(halt) // before the server stops, however the test ends
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				agent.Do(heartbeat, map[string]any{"i": beatInput(uid, 5, 1)})
				if !restarted.Load() {
					agent.Do(heartbeat, map[string]any{"i": beatInput(at, 5, 1)})
				}
			}
		}
	}()
	statuses := func() map[string]string {
		var mp struct {
			MyProvider struct {
				Machines []struct{ MachineID, Status string }
			}
		}
		p.User.MustDo(&mp, `{ myProvider { machines { machineId status } } }`, nil)
		out := map[string]string{}
		for _, m := range mp.MyProvider.Machines {
			out[m.MachineID] = m.Status
		}
		return out
	}
	// The first control going offline shows the sweeper trusts presence.
	await.True(t, func() bool {
		st := statuses()
		return st[before] == "OFFLINE" && st[uid] == "ONLINE" && st[at] == "ONLINE"
	})

	redisSrv.Restart(t) // every presence key is gone
	restarted.Store(true)
	// The second control going offline shows the sweeper trusts the
	// emptied store again and has swept it since.
	await.True(t, func() bool { return statuses()[at] == "OFFLINE" })
	require.Equal(t, "ONLINE", statuses()[uid], "heartbeats resumed; the machine never went offline")
	var offline []string
	require.NoError(t, s.Platform.DB.NewSelect().TableExpr("machine_status_intervals AS i").Join("JOIN machines AS m ON m.id = i.machine_id").
		ColumnExpr("m.machine_uid").Where("i.reason = 'UNPLANNED'").OrderExpr("1").Scan(t.Context(), &offline))
	require.Equal(t, []string{at, before}, offline, "no false outage was recorded for the machine that kept heartbeating")

	// And the sweeper still works after the restart.
	halt()
	await.True(t, func() bool { return statuses()[uid] == "OFFLINE" })
}
