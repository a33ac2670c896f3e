package platformtest

import (
	"strings"
	"testing"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/mail/mailtest"
)

// SMTPServer is mailtest's real SMTP server, with the messages decoded for
// assertions on what the platform mailed.
type SMTPServer struct {
	*mailtest.Server
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
	return &SMTPServer{Server: mailtest.Start(t, nil)}
}

// Messages returns what arrived so far, decoded; a message that does not
// decode is left out.
func (s *SMTPServer) Messages() []*Mail {
	var out []*Mail
	for _, r := range s.Server.Messages() {
		d, err := mailtest.Decode(r.Data)
		if err != nil {
			continue
		}
		out = append(out, &Mail{From: r.From, To: r.To, Subject: d.Subject, Body: d.Body()})
	}
	return out
}

// WaitFor returns the first message to rcpt whose subject contains subject,
// waiting up to 10 seconds.
func (s *SMTPServer) WaitFor(t testing.TB, rcpt, subject string) *Mail {
	t.Helper()
	var found *Mail
	await.True(t, func() bool {
		for _, m := range s.Messages() {
			for _, to := range m.To {
				if strings.EqualFold(to, rcpt) && strings.Contains(m.Subject, subject) {
					found = m
					return true
				}
			}
		}
		return false
	}, "no mail to %s about %q; got %d messages", rcpt, subject, len(s.Messages()))
	return found
}
