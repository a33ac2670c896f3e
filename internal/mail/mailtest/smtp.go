// Package mailtest runs a real SMTP server (emersion/go-smtp) on loopback
// for tests that assert what the platform mailed.
package mailtest

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"strings"
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
	// refusals and rcptCalls are keyed by the lower-cased recipient.
	refusals  map[string]*Reply
	rcptCalls map[string]int
}

// Reply is a refusal scripted for one recipient with Refusing.
type Reply struct {
	// Code is the SMTP reply code, e.g. 550 (permanent) or 451 (try
	// again later).
	Code int
	// Enhanced is the RFC 3463 code; zero sends Code's class, e.g. 5.0.0.
	Enhanced smtp.EnhancedCode
	// Message is the text after the codes ("Refused by mailtest" when
	// empty).
	Message string
	// AtData refuses at the end of DATA rather than at RCPT TO, as a
	// server that rejects the content does.
	AtData bool
	// Times is how many times the recipient is refused before mail to it
	// is accepted; zero refuses it for good.
	Times int
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

// Refusing makes the server refuse mail to rcpt with reply, e.g.
// Reply{Code: 550, Message: "No such user"}; other recipients are not
// affected.
func Refusing(rcpt string, reply Reply) Option {
	return func(s *Server, _ *smtp.Server) {
		if s.refusals == nil {
			s.refusals = map[string]*Reply{}
		}
		r := reply // a copy per server: Times counts down
		if r.Message == "" {
			r.Message = "Refused by mailtest"
		}
		s.refusals[strings.ToLower(rcpt)] = &r
	}
}

// Start runs a plain SMTP server, or, with cfg, an implicit-TLS one,
// until the test ends.
func Start(t testing.TB, cfg *tls.Config, opts ...Option) *Server {
	t.Helper()
	s := &Server{rcptCalls: map[string]int{}}
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

// RcptCalls is how many times RCPT TO named rcpt, refused ones included.
func (s *Server) RcptCalls(rcpt string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rcptCalls[strings.ToLower(rcpt)]
}

// refusal returns the error scripted for rcpt at this stage, counting it
// against the reply's Times, or nil when rcpt is accepted. The caller
// holds mu.
func (s *Server) refusal(rcpt string, atData bool) error {
	r := s.refusals[strings.ToLower(rcpt)]
	if r == nil || r.AtData != atData {
		return nil
	}
	if r.Times > 0 {
		r.Times--
		if r.Times == 0 {
			delete(s.refusals, strings.ToLower(rcpt))
		}
	}
	return &smtp.SMTPError{Code: r.Code, EnhancedCode: r.Enhanced, Message: r.Message}
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
	s := ss.server
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rcptCalls[strings.ToLower(to)]++
	if err := s.refusal(to, false); err != nil {
		return err
	}
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
	for _, to := range ss.to {
		if err := s.refusal(to, true); err != nil {
			return err
		}
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
