package platform_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/platform"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// logBuffer is a slog.Handler's destination that tests read while the
// server writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startLogged runs the platform on stack as platformtest.Start does, with
// its logger writing every level to the returned buffer (platformtest's
// servers discard their logs).
func startLogged(t *testing.T, stack platformtest.Stack) (*platformtest.Server, *logBuffer) {
	t.Helper()
	logs := new(logBuffer)
	cfg := platform.Config{
		Addr:           "127.0.0.1:0",
		PasswordParams: authtest.Params,
		Logger:         slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		SPA:            fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>GPUnex test SPA</title>")}},
		DataDir:        t.TempDir(),
	}
	if stack.Database == "postgres" {
		cfg.DatabaseURL = storetest.PostgresURL(t)
	}
	if stack.Redis {
		cfg.RedisURL = redistest.SharedURL(t)
		cfg.RedisPrefix = "test:" + platformtest.UniqueEmail("r") + ":"
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := platform.New(ctx, cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	urlc := make(chan string, 1)
	go func() { done <- p.ServeListener(ctx, ln, func(u string) { urlc <- u }) }()
	s := &platformtest.Server{URL: <-urlc, Platform: p, DatabaseURL: cfg.DatabaseURL, RedisURL: cfg.RedisURL, RedisPrefix: cfg.RedisPrefix}
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		p.Close()
	})
	return s, logs
}

// userErrors is the userErrors of a signUp or logIn payload.
type userErrors []struct{ Field, Code, Message string }

// Point 7 of issue 9: input that cannot be read as its type, or that holds
// characters no field may, is the client's mistake. It is answered with a
// code naming the field, on both stacks, and nothing is logged at ERROR
// (PostgreSQL refused a NUL byte in the SQL and the server answered
// "internal error").
func TestIssue9Point7CoercionAndForbiddenCharactersAreTheClientsMistake(t *testing.T) {
	t.Parallel()
	for _, stack := range platformtest.Stacks {
		t.Run(stack.Name, func(t *testing.T) {
			t.Parallel()
			s, logs := startLogged(t, stack)
			c := s.NewAPIClient(t, "")
			email := platformtest.UniqueEmail("coerce")
			c.SignUp(email, "correct horse battery", "Cora")

			auth := func(t *testing.T, op string, input map[string]any) userErrors {
				t.Helper()
				r := c.Do(`mutation($input: `+strings.ToUpper(op[:1])+op[1:]+`Input!) { `+op+`(input: $input) { token userErrors { field code message } } }`,
					map[string]any{"input": input})
				require.Empty(t, r.Errors, "errors: %+v\nlogs:\n%s", r.Errors, logs)
				var out map[string]struct{ UserErrors userErrors }
				r.Decode(t, &out)
				return out[op].UserErrors
			}

			t.Run("logIn with a NUL in the email is INVALID on input.email", func(t *testing.T) {
				got := auth(t, "logIn", map[string]any{"email": "coerce\x00@example.com", "password": "correct horse battery"})
				require.Len(t, got, 1, "%+v", got)
				require.Equal(t, "input.email", got[0].Field)
				require.Equal(t, "INVALID", got[0].Code)
			})
			t.Run("logIn with a NUL in an existing account's email is refused the same way", func(t *testing.T) {
				got := auth(t, "logIn", map[string]any{"email": email + "\x00", "password": "correct horse battery"})
				require.Len(t, got, 1, "%+v", got)
				require.Equal(t, "input.email", got[0].Field)
				require.Equal(t, "INVALID", got[0].Code)
			})
			t.Run("logIn with a NUL in the password is INVALID on input.password", func(t *testing.T) {
				got := auth(t, "logIn", map[string]any{"email": email, "password": "correct horse\x00battery"})
				require.Len(t, got, 1, "%+v", got)
				require.Equal(t, "input.password", got[0].Field)
				require.Equal(t, "INVALID", got[0].Code)
			})
			t.Run("signUp with a right-to-left override in the name is INVALID on input.name", func(t *testing.T) {
				got := auth(t, "signUp", map[string]any{"email": platformtest.UniqueEmail("bidi"), "password": "correct horse battery", "name": "Eve\u202Egnp.exe"})
				require.Len(t, got, 1, "%+v", got)
				require.Equal(t, "input.name", got[0].Field)
				require.Equal(t, "INVALID", got[0].Code)
			})
			t.Run("signUp with a NUL in the email is INVALID on input.email", func(t *testing.T) {
				got := auth(t, "signUp", map[string]any{"email": "nul\x00" + platformtest.UniqueEmail("x"), "password": "correct horse battery", "name": "Nul"})
				require.Len(t, got, 1, "%+v", got)
				require.Equal(t, "input.email", got[0].Field)
				require.Equal(t, "INVALID", got[0].Code)
			})

			heartbeat := []struct {
				desc  string
				query string
				vars  map[string]any
			}{
				{desc: "an inline DateTime that does not parse",
					query: `mutation { heartbeat(input: {machineId: "rig-0001", at: "garbage", gpus: []}) { accepted } }`},
				{desc: "a DateTime variable that does not parse",
					query: `mutation($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } }`,
					vars:  map[string]any{"input": map[string]any{"machineId": "rig-0001", "at": "garbage", "gpus": []any{}}}},
				{desc: "the agent's own document with a DateTime that does not parse",
					query: protocol.HeartbeatMutation,
					vars:  map[string]any{"input": map[string]any{"machineId": "rig-0001", "at": "garbage", "gpus": []any{}}}},
				{desc: "a DateTime variable of the wrong JSON type",
					query: `mutation($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } }`,
					vars:  map[string]any{"input": map[string]any{"machineId": "rig-0001", "at": 12, "gpus": []any{}}}},
			}
			for _, tc := range heartbeat {
				t.Run("heartbeat with "+tc.desc+" is BAD_USER_INPUT naming input.at", func(t *testing.T) {
					r := c.Do(tc.query, tc.vars)
					require.Len(t, r.Errors, 1, "%+v", r.Errors)
					require.Equal(t, []string{"BAD_USER_INPUT"}, r.Codes(), "%+v", r.Errors)
					require.Contains(t, r.Errors[0].Message, "input.at")
					require.NotContains(t, r.Errors[0].Message, "internal")
				})
			}

			t.Run("nothing was logged at ERROR", func(t *testing.T) {
				require.NotContains(t, logs.String(), "level=ERROR", logs.String())
			})
		})
	}
}
