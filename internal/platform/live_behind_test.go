package platform_test

import (
	"context"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// TestASubscriberThatFallsBehindIsToldWhileOthersGoOn: a dashboard that
// stops reading (its receive buffer is small, so the server's writes back
// up soon) never delays another dashboard of the same view: that one gets
// every event, one after the other. The stalled one's subscription ends
// with complete once 32 events wait on its socket; when it reads again
// it finds the complete after the events it had, and subscribing again
// gives it the current state.
func TestASubscriberThatFallsBehindIsToldWhileOthersGoOn(t *testing.T) {
	t.Parallel()
	const doc = `subscription { notificationAdded { id body } }`
	// Neither the write timeout nor the pings (which the stalled socket
	// cannot answer) may end it first, however long a busy machine takes
	// over the events: its subscription ends because it fell behind.
	opts := fanoutOptions()
	opts.API.WSWriteTimeout, opts.API.WSKeepAlive = time.Hour, time.Hour
	platformtest.Each(t, opts, func(t *testing.T, s *platformtest.Server) {
		client := s.NewAPIClient(t, "")
		id, token := client.SignUp(platformtest.UniqueEmail("behind"), "correct horse battery", "Bea")
		good := openSocket(t, s, token)
		good.Subscribe("n", doc, nil)
		stalled := dialSmallBuffer(t, s)
		stalled.Init(map[string]any{"authorization": "Bearer " + token})
		stalled.Subscribe("n", doc, nil)
		// Both follow (the answer to a query on each socket comes after
		// its subscribe was handled).
		for _, ws := range []*platformtest.WS{good, stalled} {
			ws.Send("subscribe", "q", map[string]any{"query": "{ health }"})
			require.Equal(t, "next", ws.MustRead(5*time.Second).Type)
			require.Equal(t, "complete", ws.MustRead(5*time.Second).Type)
		}

		// Notifications of 16 KiB, paced by the dashboard that reads, until
		// the stalled one's subscription must have ended: the kernel holds
		// a few MiB of its socket at most, and the server queues 32 more.
		const events = 400
		body := strings.Repeat("x", 16<<10)
		for i := range events {
			require.NoError(t, s.Platform.Notify.Add(context.Background(), s.Platform.DB, &models.Notification{
				UserID: userID(t, id), Kind: "TEST", Title: "Behind", Body: body,
			}))
			m, err := good.Read(await.Patience(t))
			require.NoError(t, err, "notification %d did not reach the dashboard that reads", i)
			require.Equal(t, "next", m.Type, "notification %d", i)
		}

		// The stalled dashboard reads again: its events, then complete.
		var nexts int
		for {
			m, err := stalled.Read(await.Patience(t))
			require.NoError(t, err, "after %d notifications the stalled dashboard got no complete", nexts)
			if m.Type == "complete" {
				require.Equal(t, "n", m.ID)
				break
			}
			require.Equal(t, "next", m.Type)
			nexts++
		}
		require.Less(t, nexts, events, "the stalled subscription ended before every event reached it")
		t.Logf("the stalled dashboard got %d of %d notifications, then complete", nexts, events)

		// It resynchronises: subscribing again with the last id it saw
		// replays what it missed, then goes on live.
		stalled.Subscribe("n2", `subscription($after: ID) { notificationAdded(afterId: $after) { id } }`, map[string]any{"after": "0"})
		var replayed int
		for replayed < events+1 { // the welcome and every notification
			m := stalled.MustRead(5 * time.Second)
			require.Equal(t, "next", m.Type)
			replayed++
		}
		require.NoError(t, s.Platform.Notify.Add(context.Background(), s.Platform.DB, &models.Notification{
			UserID: userID(t, id), Kind: "TEST", Title: "After", Body: "after",
		}))
		require.Equal(t, "next", stalled.MustRead(5*time.Second).Type)
		require.Equal(t, "next", good.MustRead(5*time.Second).Type)
	})
}

// dialSmallBuffer opens a WebSocket whose receive buffer is as small as
// the kernel allows, so a client that does not read is behind soon.
func dialSmallBuffer(t *testing.T, s *platformtest.Server) *platformtest.WS {
	t.Helper()
	nd := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		_ = c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048)
		})
		return err
	}}
	ws, _, err := s.DialWSWith(t, &websocket.Dialer{NetDialContext: nd.DialContext}, nil)
	require.NoError(t, err)
	return ws
}
