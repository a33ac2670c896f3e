// Package mailtest runs a real SMTP server (emersion/go-smtp) on loopback
// for tests that assert what the platform mailed.
package mailtest

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"
)

// Received is one accepted message, as it came over the wire.
type Received struct {
	From string   // envelope MAIL FROM
	To   []string // envelope RCPT TO
	Data []byte   // the RFC 5322 message
}

// Server is a real SMTP server (emersion/go-smtp) on 127.0.0.1:0 that
// keeps what arrives.
type Server struct {
	// Addr is host:port; Port the port alone.
	Addr string
	Port int

	// username and password, when set, are required (AUTH PLAIN).
	username, password string

	mu        sync.Mutex
	messages  []Received
	dataCalls int
	failFirst int // the first failFirst DATA commands answer 451
}

// Option configures a Server.
type Option func(*Server, *smtp.Server)

// WithAuth requires AUTH PLAIN with these credentials.
func WithAuth(user, pass string) Option {
	return func(s *Server, srv *smtp.Server) {
		s.username, s.password = user, pass
		srv.AllowInsecureAuth = true
	}
}

// FailingFirst makes the first n DATA commands fail with a temporary error.
func FailingFirst(n int) Option {
	return func(s *Server, _ *smtp.Server) { s.failFirst = n }
}

// Start runs a plain SMTP server, or, with cfg, an implicit-TLS one,
// until the test ends.
func Start(t testing.TB, cfg *tls.Config, opts ...Option) *Server {
	t.Helper()
	s := &Server{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &smtpSession{server: s}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.ErrorLog = testLogger{t}
	for _, o := range opts {
		o(s, srv)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	if cfg != nil {
		srv.TLSConfig = cfg
		l = tls.NewListener(l, cfg)
	}
	s.Addr = l.Addr().String()
	s.Port = l.Addr().(*net.TCPAddr).Port
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(l)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			_ = srv.Close()
		}
		// Serve may not have registered l yet if the test ended at once.
		_ = l.Close()
		<-served
	})
	return s
}

// Messages returns a copy of what arrived so far.
func (s *Server) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.messages...)
}

// DataCalls is how many deliveries were tried, failed ones included.
func (s *Server) DataCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dataCalls
}

type smtpSession struct {
	server *Server
	authed bool
	from   string
	to     []string
}

func (ss *smtpSession) AuthMechanisms() []string {
	if ss.server.username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != ss.server.username || pass != ss.server.password {
			return smtp.ErrAuthFailed
		}
		ss.authed = true
		return nil
	}), nil
}

func (ss *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if ss.server.username != "" && !ss.authed {
		return smtp.ErrAuthRequired
	}
	ss.from = from
	return nil
}

func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, to)
	return nil
}

func (ss *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s := ss.server
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dataCalls++
	if s.dataCalls <= s.failFirst {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Mailbox busy, try again later"}
	}
	s.messages = append(s.messages, Received{From: ss.from, To: append([]string(nil), ss.to...), Data: b})
	return nil
}

func (ss *smtpSession) Reset() { ss.from, ss.to = "", nil }

func (ss *smtpSession) Logout() error { return nil }

type testLogger struct{ t testing.TB }

func (l testLogger) Printf(format string, v ...any) { l.t.Logf("smtp server: "+format, v...) }
func (l testLogger) Println(v ...any)               { l.t.Log(append([]any{"smtp server:"}, v...)...) }

// URL is the --smtp-url of this server.
func (s *Server) URL() string { return "smtp://" + s.Addr }

// Credentials are the AUTH PLAIN user and password WithAuth set (empty
// when the server takes mail without authentication).
func (s *Server) Credentials() (user, password string) { return s.username, s.password }
