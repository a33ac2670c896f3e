package platformtest

import (
	"context"
	"io"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"
)

// SMTPServer is a real SMTP server (emersion/go-smtp) on loopback that
// keeps every message it accepts, for asserting what the platform mailed.
type SMTPServer struct {
	Addr string
	mu   sync.Mutex
	msgs []*Mail
}

// Mail is one accepted message, parsed.
type Mail struct {
	From    string
	To      []string
	Subject string
	Body    string
}

// StartSMTP runs an SMTP server until the test ends.
func StartSMTP(t testing.TB) *SMTPServer {
	t.Helper()
	s := &SMTPServer{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{srv: s}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s.Addr = l.Addr().String()
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			_ = srv.Close()
		}
		<-done
	})
	return s
}

// URL is the --smtp-url of this server.
func (s *SMTPServer) URL() string { return "smtp://" + s.Addr }

// Messages returns what arrived so far.
func (s *SMTPServer) Messages() []*Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Mail(nil), s.msgs...)
}

// WaitFor returns the first message to rcpt whose subject contains subject,
// waiting up to 10 seconds.
func (s *SMTPServer) WaitFor(t testing.TB, rcpt, subject string) *Mail {
	t.Helper()
	var found *Mail
	require.Eventually(t, func() bool {
		for _, m := range s.Messages() {
			for _, to := range m.To {
				if strings.EqualFold(to, rcpt) && strings.Contains(m.Subject, subject) {
					found = m
					return true
				}
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond, "no mail to %s about %q; got %d messages", rcpt, subject, len(s.Messages()))
	return found
}

type smtpSession struct {
	srv  *SMTPServer
	from string
	to   []string
}

func (ss *smtpSession) AuthMechanisms() []string { return nil }
func (ss *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}
func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, to)
	return nil
}
func (ss *smtpSession) Data(r io.Reader) error {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		return err
	}
	dec := new(mimeDecoder)
	m := &Mail{From: ss.from, To: append([]string(nil), ss.to...), Subject: dec.header(msg.Header.Get("Subject")), Body: dec.body(msg.Header, body)}
	ss.srv.mu.Lock()
	ss.srv.msgs = append(ss.srv.msgs, m)
	ss.srv.mu.Unlock()
	return nil
}
func (ss *smtpSession) Reset()        { ss.from, ss.to = "", nil }
func (ss *smtpSession) Logout() error { return nil }
