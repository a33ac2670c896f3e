package platform_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

const notificationAdded = `subscription($after: ID) { notificationAdded(afterId: $after) { id kind title params { key value } } }`

type nextPayload struct {
	Data struct {
		NotificationAdded struct {
			ID     string
			Kind   string
			Title  string
			Params []struct{ Key, Value string }
		}
	}
	Errors []struct {
		Message    string
		Extensions map[string]any
	}
}

func decodeNext(t *testing.T, m *platformtest.WSMessage) nextPayload {
	t.Helper()
	require.Equal(t, "next", m.Type, "message: %+v %s", m, m.Payload)
	var p nextPayload
	require.NoError(t, json.Unmarshal(m.Payload, &p))
	return p
}

func userID(t *testing.T, s string) int64 {
	t.Helper()
	id, err := models.UnmarshalInt64ID(s)
	require.NoError(t, err)
	return id
}

func TestWelcomeNotificationArrivesLiveOverWebSocket(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		apiClient := s.NewAPIClient(t, "")
		id, token := apiClient.SignUp(platformtest.UniqueEmail("live"), "correct horse battery", "Lia")

		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(map[string]any{"authorization": "Bearer " + token})
		ws.Subscribe("1", notificationAdded, map[string]any{"after": "0"})

		// The welcome made at sign-up is replayed first...
		p := decodeNext(t, ws.MustRead(5*time.Second))
		require.Equal(t, "WELCOME", p.Data.NotificationAdded.Kind)
		require.Equal(t, []struct{ Key, Value string }{{"name", "Lia"}}, p.Data.NotificationAdded.Params)

		// ...then a new one travels mutation-side service → bus → socket.
		require.NoError(t, s.Platform.Notify.Add(context.Background(), s.Platform.DB, &models.Notification{
			UserID: userID(t, id), Kind: "TEST", Title: "Live", Body: "live body",
		}))
		p = decodeNext(t, ws.MustRead(5*time.Second))
		require.Equal(t, "TEST", p.Data.NotificationAdded.Kind)

		// Another user's notification never reaches this socket.
		other := s.NewAPIClient(t, "")
		other.SignUp(platformtest.UniqueEmail("other"), "correct horse battery", "Oz")
		ws.Send("complete", "1", nil)
	})
}

func TestSPAWebSocketUsesTheSessionCookieFromItsOwnOrigin(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{})
	spa := s.NewSPAClient(t)
	spa.SignUp(platformtest.UniqueEmail("cookie-ws"), "correct horse battery", "Cy")
	u, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	var cookie string
	for _, c := range spa.HTTP.Jar.Cookies(u.URL) {
		if c.Name == api.SessionCookieName {
			cookie = c.Name + "=" + c.Value
		}
	}
	require.NotEmpty(t, cookie)

	ws, _, err := s.DialWS(t, http.Header{"Origin": {s.URL}, "Cookie": {cookie}})
	require.NoError(t, err)
	ws.Init(nil)
	ws.Subscribe("1", notificationAdded, map[string]any{"after": "0"})
	p := decodeNext(t, ws.MustRead(5*time.Second))
	require.Equal(t, "WELCOME", p.Data.NotificationAdded.Kind)
}

func TestWebSocketProtocolViolationsGetTheirCloseCodes(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{API: api.Config{WSInitTimeout: 300 * time.Millisecond}})

	t.Run("a foreign Origin is refused at the handshake", func(t *testing.T) {
		_, res, err := s.DialWS(t, http.Header{"Origin": {"https://evil.example"}})
		require.ErrorIs(t, err, websocket.ErrBadHandshake)
		require.Equal(t, http.StatusForbidden, res.StatusCode)
	})
	t.Run("subscribe before connection_init closes with 4401", func(t *testing.T) {
		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Subscribe("1", `subscription { notificationAdded { id } }`, nil)
		require.Equal(t, 4401, ws.CloseCode(3*time.Second))
	})
	t.Run("no connection_init in time closes with 4408", func(t *testing.T) {
		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		require.Equal(t, 4408, ws.CloseCode(3*time.Second))
	})
	t.Run("a second connection_init closes with 4429", func(t *testing.T) {
		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(nil)
		ws.Send("connection_init", "", nil)
		require.Equal(t, 4429, ws.CloseCode(3*time.Second))
	})
	t.Run("a forged token in connection_init closes with 4403", func(t *testing.T) {
		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Send("connection_init", "", map[string]any{"authorization": "Bearer gpx_s_" + strings.Repeat("C", 43)})
		require.Equal(t, 4403, ws.CloseCode(3*time.Second))
	})
	t.Run("an anonymous subscription gets UNAUTHENTICATED", func(t *testing.T) {
		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(nil)
		ws.Subscribe("1", `subscription { notificationAdded { id } }`, nil)
		m := ws.MustRead(3 * time.Second)
		require.Contains(t, []string{"error", "next"}, m.Type)
		require.Contains(t, string(m.Payload), "UNAUTHENTICATED")
	})
	t.Run("the server keeps serving", func(t *testing.T) {
		var out struct{ Health bool }
		s.NewAPIClient(t, "").MustDo(&out, `{ health }`, nil)
		require.True(t, out.Health)
	})
}

func TestEventThroughReplicaBReachesSubscriberOnReplicaA(t *testing.T) {
	t.Parallel()
	stack := platformtest.Stacks[1]
	a := platformtest.Start(t, stack, platformtest.Options{})
	b := platformtest.Start(t, stack, platformtest.Options{DatabaseURL: a.DatabaseURL, RedisURL: a.RedisURL, RedisPrefix: a.RedisPrefix})

	// Sign up through B; subscribe on A.
	cb := b.NewAPIClient(t, "")
	id, token := cb.SignUp(platformtest.UniqueEmail("replica"), "correct horse battery", "Rey")
	ws, _, err := a.DialWS(t, nil)
	require.NoError(t, err)
	ws.Init(map[string]any{"authorization": "Bearer " + token})
	ws.Subscribe("1", notificationAdded, map[string]any{"after": "0"})
	p := decodeNext(t, ws.MustRead(5*time.Second))
	require.Equal(t, "WELCOME", p.Data.NotificationAdded.Kind, "A replays what B stored")

	// A notification made on B crosses Redis to A's subscriber.
	require.NoError(t, b.Platform.Notify.Add(context.Background(), b.Platform.DB, &models.Notification{
		UserID: userID(t, id), Kind: "FROM_B", Title: "Hello from B", Body: "b",
	}))
	p = decodeNext(t, ws.MustRead(5*time.Second))
	require.Equal(t, "FROM_B", p.Data.NotificationAdded.Kind)

	// And the session made on B is valid on A.
	var me meData
	a.NewAPIClient(t, token).MustDo(&me, meQuery, nil)
	require.NotNil(t, me.Me)
}

func TestSubscriptionsLeaveNoGoroutineBehind(t *testing.T) {
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{})
	c := s.NewAPIClient(t, "")
	_, token := c.SignUp(platformtest.UniqueEmail("leak"), "correct horse battery", "Lee")
	var out struct{ Health bool }
	c.MustDo(&out, `{ health }`, nil)
	c.HTTP.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()

	for i := range 5 {
		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(map[string]any{"authorization": "Bearer " + token})
		ws.Subscribe("s", notificationAdded, map[string]any{"after": "0"})
		decodeNext(t, ws.MustRead(5*time.Second))
		if i%2 == 0 {
			ws.Send("complete", "s", nil)
		}
		require.NoError(t, ws.Conn.Close())
	}
	await.True(t, func() bool { return runtime.NumGoroutine() <= before+1 },
		"goroutines: before %d, now %d", before, runtime.NumGoroutine())
}
