package platform_test

import (
	"encoding/json"
	"errors"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// The live layer (issue 10): a subscription holds no goroutine, and an
// event is executed and encoded once per view and operation (the same
// user with the same roles, the same document and variables), the same
// bytes written to every socket of the group. These tests watch it from
// outside: the bytes on the sockets, the subscription counter of /metrics
// (it grows once per response executed, so once per encoding), the SQL
// statements the database runs and the goroutines of the process.

// fanoutOptions lifts the per-user and per-address socket caps (a hundred
// dashboards of one provider, from one address) and keeps the offline
// sweeper from running SQL in the middle of a counted event.
func fanoutOptions() platformtest.Options {
	return platformtest.Options{
		API:   api.Config{WSMaxPerUser: -1, WSMaxPerAddress: -1},
		Fleet: fleet.Config{Interval: time.Hour},
	}
}

// fanoutProvider makes an approved provider with one registered machine
// (so a dashboard's current state is one message) and returns the
// machine's GraphQL id and row id.
func fanoutProvider(t *testing.T, s *platformtest.Server, name string) (p *platformtest.Provider, machine string, machineRow int64) {
	t.Helper()
	p = s.NewProvider(t, name)
	agent := s.NewAPIClient(t, p.AgentToken)
	var reg struct {
		RegisterMachine struct {
			Machine    *struct{ ID string }
			UserErrors []userError
		}
	}
	agent.MustDo(&reg, registerMachine, map[string]any{"i": inventory(name+"-machine-0001", "NVIDIA L4")})
	require.Empty(t, reg.RegisterMachine.UserErrors)
	require.NotNil(t, reg.RegisterMachine.Machine)
	agent.HTTP.CloseIdleConnections()
	machine = reg.RegisterMachine.Machine.ID
	return p, machine, userID(t, machine)
}

// fanoutTransition publishes a transition of the machine on its
// provider's channel, as the replica that saw the heartbeat would.
func fanoutTransition(t *testing.T, s *platformtest.Server, providerID, machineRow int64) {
	t.Helper()
	payload, err := json.Marshal(map[string]any{"machineId": machineRow, "status": protocol.MachineOnline})
	require.NoError(t, err)
	require.NoError(t, s.Platform.Bus.Publish(t.Context(), fleet.Channel(providerID), payload))
}

// fanoutNext reads the next message, requires it is a next of operation
// id, and returns its payload as the server wrote it.
func fanoutNext(t *testing.T, ws *platformtest.WS, id string) json.RawMessage {
	t.Helper()
	m := ws.MustRead(10 * time.Second)
	require.Equal(t, "next", m.Type, "message %+v: %s", m, m.Payload)
	require.Equal(t, id, m.ID, "message %+v: %s", m, m.Payload)
	return m.Payload
}

// fanoutStatus decodes a machineStatusChanged payload.
func fanoutStatus(t *testing.T, payload json.RawMessage) statusEvent {
	t.Helper()
	var ev statusEvent
	require.NoError(t, json.Unmarshal(payload, &ev))
	require.Empty(t, ev.Errors, "%s", payload)
	return ev
}

// fanoutApplication decodes a providerApplicationChanged payload.
func fanoutApplication(t *testing.T, payload json.RawMessage) applicationChange {
	t.Helper()
	var p struct {
		Data   struct{ ProviderApplicationChanged applicationChange }
		Errors []any
	}
	require.NoError(t, json.Unmarshal(payload, &p))
	require.Empty(t, p.Errors, "%s", payload)
	return p.Data.ProviderApplicationChanged
}

// fanoutSilent requires that ws receives nothing within wait: the read
// must end in a timeout. The socket cannot be read after that.
func fanoutSilent(t *testing.T, ws *platformtest.WS, wait time.Duration) {
	t.Helper()
	m, err := ws.Read(wait)
	if err == nil {
		t.Fatalf("expected nothing, got %s id %q: %s", m.Type, m.ID, m.Payload)
	}
	var ne net.Error
	require.True(t, errors.As(err, &ne) && ne.Timeout(), "expected a read timeout, got %v", err)
}

// Issue 10: a hundred dashboards of one provider, the same document on
// each, are one view of one operation: a transition is executed and
// encoded once, every socket gets the very same bytes, and the event
// costs at most two SQL statements (the machine loaded once), on both
// stacks.
func TestAnEventIsEncodedOnceForEveryDashboardOfAView(t *testing.T) {
	t.Parallel()
	const dashboards = 100
	platformtest.Each(t, fanoutOptions(), func(t *testing.T, s *platformtest.Server) {
		p, machine, machineRow := fanoutProvider(t, s, "fanout")
		socks := make([]*platformtest.WS, dashboards)
		for i := range socks {
			socks[i] = openSocket(t, s, p.User.Token)
			socks[i].Subscribe("1", statusSubscription, nil)
			ev := fanoutStatus(t, fanoutNext(t, socks[i], "1"))
			require.True(t, ev.Data.MachineStatusChanged.Initial, "dashboard %d: the current state first", i)
			require.Equal(t, machine, ev.Data.MachineStatusChanged.Machine.ID)
		}
		s.DrainMail(t) // the mail worker's writes are not the event's
		statements := s.RecordStatements()
		before := s.OperationCount(t, "subscription")

		payloads := make([]json.RawMessage, dashboards)
		stmts := statements.Record(func() {
			fanoutTransition(t, s, p.ID, machineRow)
			for i, ws := range socks {
				payloads[i] = fanoutNext(t, ws, "1")
			}
		})

		ev := fanoutStatus(t, payloads[0])
		require.False(t, ev.Data.MachineStatusChanged.Initial)
		require.Equal(t, machine, ev.Data.MachineStatusChanged.Machine.ID)
		for i, b := range payloads {
			require.Equal(t, string(payloads[0]), string(b), "dashboard %d got other bytes", i)
		}
		require.Equal(t, before+1, s.OperationCount(t, "subscription"),
			"the event was executed and encoded once for %d dashboards", dashboards)
		require.LessOrEqual(t, len(stmts), 2, "SQL statements for one event to %d dashboards: %q", dashboards, stmts)
		t.Logf("one event to %d dashboards: %d SQL statements, %d bytes of payload, encoded once", dashboards, len(stmts), len(payloads[0]))
	})
}

// Different users are different views, encoded apart: each provider's
// dashboards get only its own machine, and one event seen by two admins
// (the same document, the same channel, the same application) is encoded
// once for each of them, not once for both nor once per socket.
func TestDifferentViewsAreEncodedApart(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, fanoutOptions(), func(t *testing.T, s *platformtest.Server) {
		alice, aliceMachine, aliceRow := fanoutProvider(t, s, "alice")
		bob, bobMachine, bobRow := fanoutProvider(t, s, "bob")
		require.NotEqual(t, aliceMachine, bobMachine)
		// An application awaits a decision: the admins' watch opens with it.
		_, appID := applyAs(t, s, "Ivy")
		ada, bea := adminClient(t, s, "Ada"), adminClient(t, s, "Bea")

		dashboards := func(token, machine string) []*platformtest.WS {
			socks := make([]*platformtest.WS, 2)
			for i := range socks {
				socks[i] = openSocket(t, s, token)
				socks[i].Subscribe("1", statusSubscription, nil)
				ev := fanoutStatus(t, fanoutNext(t, socks[i], "1"))
				require.True(t, ev.Data.MachineStatusChanged.Initial)
				require.Equal(t, machine, ev.Data.MachineStatusChanged.Machine.ID, "a provider's current state is its own machine")
			}
			return socks
		}
		watches := func(token string) []*platformtest.WS {
			socks := make([]*platformtest.WS, 2)
			for i := range socks {
				socks[i] = openSocket(t, s, token)
				socks[i].Subscribe("apps", applicationChanged, map[string]any{})
				c := fanoutApplication(t, fanoutNext(t, socks[i], "apps"))
				require.True(t, c.Initial)
				require.Equal(t, appID, c.Application.ID)
			}
			return socks
		}
		aliceWS, bobWS := dashboards(alice.User.Token, aliceMachine), dashboards(bob.User.Token, bobMachine)
		adaWS, beaWS := watches(ada.Token), watches(bea.Token)
		before := s.OperationCount(t, "subscription")

		// readAll reads the next payload of operation id on every socket,
		// requires they are the same bytes, and returns them.
		readAll := func(socks []*platformtest.WS, id string) json.RawMessage {
			first := fanoutNext(t, socks[0], id)
			for _, ws := range socks[1:] {
				require.Equal(t, string(first), string(fanoutNext(t, ws, id)), "the sockets of one view get the same bytes")
			}
			return first
		}
		own := func(socks []*platformtest.WS, machine string) {
			ev := fanoutStatus(t, readAll(socks, "1"))
			require.False(t, ev.Data.MachineStatusChanged.Initial)
			require.Equal(t, machine, ev.Data.MachineStatusChanged.Machine.ID, "a provider's dashboards show its own machine only")
		}

		fanoutTransition(t, s, alice.ID, aliceRow)
		own(aliceWS, aliceMachine)
		require.Equal(t, before+1, s.OperationCount(t, "subscription"), "alice's view encoded her event once")
		fanoutTransition(t, s, bob.ID, bobRow)
		own(bobWS, bobMachine)
		require.Equal(t, before+2, s.OperationCount(t, "subscription"), "bob's view encoded his event once")

		// One change of the application, as another replica announces it:
		// both admins get it, each view encoding it once.
		id, err := models.UnmarshalInt64ID(appID)
		require.NoError(t, err)
		payload, err := json.Marshal(map[string]any{"applicationId": id})
		require.NoError(t, err)
		require.NoError(t, s.Platform.Bus.Publish(t.Context(), onboarding.ChangesChannel, payload))
		adaSaw := fanoutApplication(t, readAll(adaWS, "apps"))
		beaSaw := fanoutApplication(t, readAll(beaWS, "apps"))
		for _, c := range []applicationChange{adaSaw, beaSaw} {
			require.False(t, c.Initial)
			require.Equal(t, appID, c.Application.ID)
		}
		require.Equal(t, before+4, s.OperationCount(t, "subscription"),
			"one event seen by two admins is encoded once per admin: not once for both, nor once per socket")

		// Neither provider got the other's event: the next message on
		// each dashboard is its own provider's next event.
		fanoutTransition(t, s, bob.ID, bobRow)
		fanoutTransition(t, s, alice.ID, aliceRow)
		own(aliceWS, aliceMachine)
		own(bobWS, bobMachine)
	})
}

// A subscription completed by its client leaves its group; the others of
// the group go on, even when the one that left made the group, and even
// once that one's whole socket is gone.
func TestACompletedSubscriptionStopsWhileOthersOfItsGroupGoOn(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, fanoutOptions(), func(t *testing.T, s *platformtest.Server) {
		p, machine, machineRow := fanoutProvider(t, s, "complete")
		// a subscribes first: its subscription makes the group.
		a, b := openSocket(t, s, p.User.Token), openSocket(t, s, p.User.Token)
		for _, ws := range []*platformtest.WS{a, b} {
			ws.Subscribe("1", statusSubscription, nil)
			require.True(t, fanoutStatus(t, fanoutNext(t, ws, "1")).Data.MachineStatusChanged.Initial)
		}
		before := s.OperationCount(t, "subscription")

		a.Send("complete", "1", nil)
		// A socket's messages run in order: once the query sent after the
		// complete is answered, the complete has been handled.
		a.Subscribe("q", `{ health }`, nil)
		require.JSONEq(t, `{"data":{"health":true}}`, string(fanoutNext(t, a, "q")))
		m := a.MustRead(5 * time.Second)
		require.Equal(t, "complete", m.Type, "%+v", m)
		require.Equal(t, "q", m.ID, "the complete of the query, not of the completed subscription: %+v", m)

		fanoutTransition(t, s, p.ID, machineRow)
		ev := fanoutStatus(t, fanoutNext(t, b, "1"))
		require.False(t, ev.Data.MachineStatusChanged.Initial)
		require.Equal(t, machine, ev.Data.MachineStatusChanged.Machine.ID)
		require.Equal(t, before+1, s.OperationCount(t, "subscription"))

		// The socket that made the group goes away altogether: the group
		// still encodes for b.
		c := openSocket(t, s, p.User.Token)
		c.Subscribe("1", statusSubscription, nil)
		require.True(t, fanoutStatus(t, fanoutNext(t, c, "1")).Data.MachineStatusChanged.Initial)
		fanoutSilent(t, a, 500*time.Millisecond) // nothing more for the completed subscription
		require.NoError(t, a.Conn.NetConn().Close())
		fanoutTransition(t, s, p.ID, machineRow)
		got := fanoutNext(t, b, "1")
		require.False(t, fanoutStatus(t, got).Data.MachineStatusChanged.Initial)
		require.Equal(t, string(got), string(fanoutNext(t, c, "1")), "b and c are one group: the same bytes")
	})
}

// settledGoroutines waits until the process's goroutine count holds
// still for a moment (what just ended has wound down) and returns it.
func settledGoroutines() int {
	n, still := runtime.NumGoroutine(), 0
	for deadline := time.Now().Add(3 * time.Second); still < 5 && time.Now().Before(deadline); {
		time.Sleep(40 * time.Millisecond)
		if m := runtime.NumGoroutine(); m == n {
			still++
		} else {
			n, still = m, 0
		}
	}
	return n
}

// Fifty dashboards, each a socket with two subscriptions
// (machineStatusChanged and notificationAdded), cost at most three
// goroutines each once idle (the socket's read loop and gqlgen's watch of
// its context; none per subscription), both subscriptions still live; and
// once every client vanishes without a close frame, the goroutines go
// back to where they were before the first socket.
//
// Not parallel: it counts the process's goroutines, so nothing else may
// run meanwhile, and the stacks run one after the other.
func TestDashboardsHoldNoGoroutinePerSubscription(t *testing.T) {
	const dashboards = 50
	for _, stack := range platformtest.Stacks {
		t.Run(stack.Name, func(t *testing.T) {
			s := platformtest.Start(t, stack, fanoutOptions())
			p, machine, machineRow := fanoutProvider(t, s, "idle")
			var me meData
			p.User.MustDo(&me, meQuery, nil)
			require.NotNil(t, me.Me)
			p.User.HTTP.CloseIdleConnections()
			s.DrainMail(t)
			base := settledGoroutines()

			socks := make([]*platformtest.WS, dashboards)
			for i := range socks {
				ws := openSocket(t, s, p.User.Token)
				ws.Subscribe("n", notificationAdded, nil) // no afterId: nothing replayed
				ws.Subscribe("m", statusSubscription, nil)
				// A socket's messages run in order: the machine's current
				// state means both subscriptions are running.
				ev := fanoutStatus(t, fanoutNext(t, ws, "m"))
				require.True(t, ev.Data.MachineStatusChanged.Initial)
				require.Equal(t, machine, ev.Data.MachineStatusChanged.Machine.ID)
				socks[i] = ws
			}
			idle := settledGoroutines()
			t.Logf("%s: %d goroutines before, %d with %d idle dashboards (%.2f a dashboard, two subscriptions each)",
				stack.Name, base, idle, dashboards, float64(idle-base)/dashboards)
			require.LessOrEqual(t, idle-base, 3*dashboards, "goroutines of %d idle dashboards", dashboards)

			// Both subscriptions of every dashboard are live.
			fanoutTransition(t, s, p.ID, machineRow)
			require.NoError(t, s.Platform.Notify.Add(t.Context(), s.Platform.DB, &models.Notification{
				UserID: userID(t, me.Me.ID), Kind: "TEST", Title: "Live", Body: "live body",
			}))
			for i, ws := range socks {
				got := map[string]bool{}
				for range 2 {
					m := ws.MustRead(10 * time.Second)
					require.Equal(t, "next", m.Type, "dashboard %d: %+v %s", i, m, m.Payload)
					got[m.ID] = true
				}
				require.Equal(t, map[string]bool{"m": true, "n": true}, got, "dashboard %d", i)
			}
			// Written, the events leave no goroutine behind.
			await.Goroutines(t, base+3*dashboards, "idle again after the events")

			// Every client vanishes without a close frame.
			for _, ws := range socks {
				require.NoError(t, ws.Conn.NetConn().Close())
			}
			await.Goroutines(t, base+3, "after every client dropped")
			t.Logf("%s: %d goroutines after every client dropped (%d before)", stack.Name, runtime.NumGoroutine(), base)
		})
	}
}
