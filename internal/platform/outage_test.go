package platform_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/proxytest"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Issue 30's PostgreSQL drill: the database goes away (a proxy in front of
// it is cut: connections refused) while a machine runs a rental and its
// agent's token is no longer cached. Every request that needed the
// database is answered 503 UNAVAILABLE with a retry hint, never INTERNAL;
// when the database is back and the agent's next heartbeat is taken, the
// machine is still ONLINE and the rental still RUNNING: the sweeper blamed
// no machine for the platform's own outage. Afterwards a machine that
// really falls silent still goes offline.
func TestAPostgresOutageIsAnsweredUnavailableAndBlamesNoMachine(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(storetest.PostgresURL(t))
	require.NoError(t, err)
	pg := proxytest.Start(t, u.Host)
	u.Host = pg.Addr()
	clk := clock.NewManual(time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC))
	s := platformtest.Start(t, platformtest.Stack{Name: "postgres+memory", Database: "postgres"}, platformtest.Options{
		DatabaseURL: u.String(), Clock: clk, Fleet: fleet.Config{Interval: 10 * time.Second},
	})
	ctx := context.Background()
	p := s.NewProvider(t, "outage")
	uid := "outage-machine-1"
	marketMachine(t, s, p, uid, 1, 90, 1_000_000)
	agent := s.NewAPIClient(t, p.AgentToken)
	beat := func() *platformtest.Response { return agent.Do(heartbeat, map[string]any{"i": beatInput(uid, 50, 1)}) }
	c := customer(t, s, "outage-customer")
	id := rentTheOnlyListing(t, c)
	require.Equal(t, 200, beat().Status, "the heartbeat delivers START_JOB")
	var r models.Rental
	require.NoError(t, s.Platform.DB.NewSelect().Model(&r).Where("id = ?", id).Scan(ctx))
	_, err = s.Platform.Market.ReportJobStatus(ctx, &auth.Agent{TokenID: 1, ProviderID: p.ID},
		protocol.ReportJobStatusInput{MachineID: uid, JobID: r.JobID, State: protocol.JobRunning, At: clk.Now()})
	require.NoError(t, err)

	// The sweeper trusts the presence store after a grace (30 s) of
	// heartbeats every interval.
	sweep := func() int {
		n, err := s.Platform.Fleet.Sweep(ctx)
		require.NoError(t, err)
		return n
	}
	require.Zero(t, sweep())
	for range 4 {
		clk.Advance(10 * time.Second)
		require.Equal(t, 200, beat().Status)
		require.Zero(t, sweep())
	}
	state := func() (machine, rental string) {
		var out struct {
			MyProvider struct{ Machines []struct{ Status string } }
		}
		p.User.MustDo(&out, `{ myProvider { machines { status } } }`, nil)
		var rent struct{ Rental struct{ State string } }
		c.MustDo(&rent, `query($id: ID!) { rental(id: $id) { state } }`, map[string]any{"id": id})
		return out.MyProvider.Machines[0].Status, rent.Rental.State
	}
	m, rs := state()
	require.Equal(t, "ONLINE", m)
	require.Equal(t, "RUNNING", rs)

	// The token's cache (30 s) runs out and the database goes away.
	clk.Advance(10 * time.Second)
	require.Equal(t, 200, beat().Status, "the last heartbeat before the outage")
	clk.Advance(21 * time.Second)
	pg.Cut()
	for range 3 {
		res := beat()
		require.Equal(t, 503, res.Status, "a heartbeat the platform cannot take")
		require.Equal(t, []string{"UNAVAILABLE"}, res.Codes())
		require.Equal(t, "5", res.Header.Get("Retry-After"))
		require.Zero(t, sweep(), "while the platform is out, the sweeper marks nothing")
		clk.Advance(5 * time.Second)
	}
	signedIn := c.Do(`{ me { email } }`, nil)
	require.Equal(t, 503, signedIn.Status, "a session the platform cannot look up")
	require.Equal(t, []string{"UNAVAILABLE"}, signedIn.Codes())
	// A dashboard reconnecting now is told to try again (1013), not that
	// its session has ended (4403, as the full soak's were told).
	ws, _, err := s.DialWS(t, nil)
	require.NoError(t, err)
	ws.Send("connection_init", "", map[string]any{"authorization": "Bearer " + c.Token})
	require.Equal(t, 1013, ws.CloseCode(time.Second), "a session the platform cannot look up is no forbidden one")

	// The database is back, 46 s after the last heartbeat taken: past the
	// grace, but the platform, not the machine, was down.
	pg.Restore(t)
	await.True(t, func() bool { return s.Platform.DB.Ping(ctx) == nil })
	require.Zero(t, sweep(), "no machine is blamed for the platform's outage")
	clk.Advance(5 * time.Second)
	require.Equal(t, 200, beat().Status, "the agent's next heartbeat is taken")
	require.Zero(t, sweep())
	m, rs = state()
	require.Equal(t, "ONLINE", m)
	require.Equal(t, "RUNNING", rs, "the rental survived the outage")
	unplanned, err := s.Platform.DB.NewSelect().Table("machine_status_intervals").Where("reason = 'UNPLANNED'").Count(ctx)
	require.NoError(t, err)
	require.Zero(t, unplanned, "no outage of the machine was recorded")

	// A machine that really falls silent still goes offline, a grace
	// after the platform's outage and its last heartbeat.
	for range 4 {
		clk.Advance(10 * time.Second)
		sweep()
	}
	m, rs = state()
	require.Equal(t, "OFFLINE", m)
	require.Equal(t, "INTERRUPTED", rs)
}

// Issue 30's Redis drill: while Redis is down the agent's heartbeats are
// answered UNAVAILABLE with a retry hint (the presence store could not
// record them), never INTERNAL; once it is back they are taken again.
func TestARedisOutageIsAnsweredUnavailable(t *testing.T) {
	t.Parallel()
	redisSrv := redistest.Start(t, 0)
	s := platformtest.Start(t, platformtest.Stacks[1], platformtest.Options{RedisURL: redisSrv.URL()})
	p := s.NewProvider(t, "redis-outage")
	agent := s.NewAPIClient(t, p.AgentToken)
	uid := "redis-outage-machine"
	agent.MustDo(nil, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA L4")})
	beat := func() *platformtest.Response { return agent.Do(heartbeat, map[string]any{"i": beatInput(uid, 5, 1)}) }
	require.Empty(t, beat().Codes())

	redisSrv.Stop(t)
	res := beat()
	require.Equal(t, []string{"UNAVAILABLE"}, res.Codes(), "%+v", res.Errors)
	require.InDelta(t, 5, res.Errors[0].Extensions["retryAfterSeconds"], 0)

	redisSrv.Restart(t)
	await.True(t, func() bool { return len(beat().Codes()) == 0 }, "heartbeats are taken again")
}
