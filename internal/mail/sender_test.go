package mail_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/mail/mailtest"
)

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// emlFiles lists the .eml files of the file sink under dataDir, sorted,
// and checks no half-written file is left beside them.
func emlFiles(t *testing.T, dataDir string) []string {
	t.Helper()
	dir := filepath.Join(dataDir, "mail", "outbox")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		require.Equal(t, ".eml", filepath.Ext(e.Name()), "unexpected file %s in the outbox directory", e.Name())
		out = append(out, filepath.Join(dir, e.Name()))
	}
	slices.Sort(out)
	return out
}

func TestFileSinkWritesEMLThatParses(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	sender, err := mail.NewSender("", dataDir, testFrom)
	require.NoError(t, err)
	require.IsType(t, &mail.FileSender{}, sender, "an empty --smtp-url selects the file sink")

	created := time.Date(2026, 11, 29, 9, 15, 0, 0, time.UTC)
	withHTML := approval("Ada Lovelace <ada@example.com>")
	withHTML.ID, withHTML.Created = 42, created
	textOnly := mail.Message{
		To: "bob@example.com", Subject: "More information needed — Grüße",
		Text: "Please tell us your upload speed.\nLine two: 100% sure = yes.\n", Kind: "application.info_requested", ID: 43, Created: created,
	}
	ctx := context.Background()
	require.NoError(t, sender.Send(ctx, withHTML))
	require.NoError(t, sender.Send(ctx, textOnly))

	files := emlFiles(t, dataDir)
	require.Len(t, files, 2)
	name := regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-(\d+)\.eml$`)
	for i, want := range []string{"42", "43"} {
		m := name.FindStringSubmatch(filepath.Base(files[i]))
		require.NotNil(t, m, "file name %s is <UTC timestamp>-<id>.eml", filepath.Base(files[i]))
		require.Equal(t, want, m[1])
		info, err := os.Stat(files[i])
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "emails may hold tokens: private to the server's user")
	}

	for i, msg := range []mail.Message{withHTML, textOnly} {
		raw, err := os.ReadFile(files[i])
		require.NoError(t, err)
		p := parse(t, raw)
		from, err := p.Header.AddressList("From")
		require.NoError(t, err)
		require.Equal(t, "noreply@gpunex.io", from[0].Address)
		to, err := p.Header.AddressList("To")
		require.NoError(t, err)
		require.Len(t, to, 1)
		require.Contains(t, msg.To, to[0].Address)
		require.Equal(t, msg.Subject, p.Subject)
		date, err := p.Header.Date()
		require.NoError(t, err)
		require.True(t, date.Equal(created))
		require.Equal(t, "<outbox."+itoa64(msg.ID)+"."+strconv.FormatInt(created.UnixNano(), 36)+"@gpunex.io>", p.Header.Get("Message-Id"))
		require.Equal(t, "1.0", p.Header.Get("Mime-Version"))
		require.Equal(t, msg.Text, p.Text())
		require.Equal(t, msg.HTML, p.HTML())
	}
}

func TestFileSinkRefusesAnInvalidMessage(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	sender, err := mail.NewSender("", dataDir, testFrom)
	require.NoError(t, err)
	err = sender.Send(context.Background(), mail.Message{To: "not an address", Subject: "s", Text: "t", Kind: "k"})
	require.ErrorIs(t, err, mail.ErrInvalidMessage, "the worker fails such a message at once")
	require.Empty(t, emlFiles(t, dataDir))
}

func TestSMTPSenderUsesImplicitTLSAndAuthenticates(t *testing.T) {
	t.Parallel()
	serverTLS, clientTLS := selfSignedTLS(t)
	srv := startSMTP(t, serverTLS, withAuth("gpunex", "tls-pa55"))

	cfg, err := mail.ParseSMTPURL("smtps://gpunex:tls-pa55@127.0.0.1:" + strconv.Itoa(srv.port) + "?from=noreply%40gpunex.io")
	require.NoError(t, err)
	require.True(t, cfg.ImplicitTLS)
	cfg.TLSConfig = clientTLS
	sender, err := mail.NewSMTPSender(cfg)
	require.NoError(t, err)
	require.NoError(t, sender.Send(context.Background(), approval("ada@example.com")))
	got := srv.Messages()
	require.Len(t, got, 1)
	require.Equal(t, "noreply@gpunex.io", got[0].From)

	// Without trusting the server's certificate, nothing is sent.
	cfg.TLSConfig = nil
	untrusting, err := mail.NewSMTPSender(cfg)
	require.NoError(t, err)
	err = untrusting.Send(context.Background(), approval("ada@example.com"))
	require.ErrorContains(t, err, "certificate")
	require.NotErrorIs(t, err, mail.ErrPermanent, "a TLS failure is retried")
	require.NotContains(t, err.Error(), "tls-pa55")
	require.Len(t, srv.Messages(), 1)
}

func TestSMTPSenderReportsAnUnreachableServer(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1 of the loopback address.
	sender, err := mail.NewSender("smtp://u:hidden-pw@127.0.0.1:1?timeout=2s", t.TempDir(), testFrom)
	require.NoError(t, err)
	err = sender.Send(context.Background(), approval("ada@example.com"))
	require.ErrorContains(t, err, "smtp connect")
	require.NotErrorIs(t, err, mail.ErrPermanent, "a refused connection is retried")
	require.NotContains(t, err.Error(), "hidden-pw")
}

func TestParseSMTPURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		url  string
		want mail.SMTPConfig
	}{
		{"plain smtp defaults to the submission port and opportunistic STARTTLS",
			"smtp://mail.example.com",
			mail.SMTPConfig{Host: "mail.example.com", Port: 587, Auth: "auto", TLS: mail.TLSOpportunistic, Timeout: 15 * time.Second}},
		{"smtps is implicit TLS on 465, with credentials and a sender",
			"smtps://user:pass@mail.example.com?from=noreply@gpunex.io",
			mail.SMTPConfig{Host: "mail.example.com", Port: 465, Username: "user", Password: "pass", Auth: "auto", ImplicitTLS: true, TLS: mail.TLSOpportunistic, From: "noreply@gpunex.io", Timeout: 15 * time.Second}},
		{"every setting, and a percent-encoded password",
			"smtp://apikey:p%40ss%2Fw0rd@127.0.0.1:2525?tls=mandatory&auth=LOGIN&timeout=5s&from=GPUnex%20%3Cnoreply%40gpunex.io%3E",
			mail.SMTPConfig{Host: "127.0.0.1", Port: 2525, Username: "apikey", Password: "p@ss/w0rd", Auth: "login", TLS: mail.TLSMandatory, From: "GPUnex <noreply@gpunex.io>", Timeout: 5 * time.Second}},
		{"a local relay without TLS",
			"smtp://localhost:25?tls=none",
			mail.SMTPConfig{Host: "localhost", Port: 25, Auth: "auto", TLS: mail.TLSNone, Timeout: 15 * time.Second}},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			got, err := mail.ParseSMTPURL(c.url)
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestBadSMTPURLGivesAClearError(t *testing.T) {
	t.Parallel()
	const password = "pw-Secr3t"
	cases := []struct {
		desc, url, from, want string
	}{
		{"another scheme", "ftp://u:" + password + "@mail.example.com", testFrom, "scheme must be smtp:// or smtps://"},
		{"no scheme", "mail.example.com:587", testFrom, "invalid SMTP URL"},
		{"no host", "smtp://u:" + password + "@", testFrom, "no host"},
		{"port out of range", "smtp://u:" + password + "@mail.example.com:99999", testFrom, "port \"99999\" is not between 1 and 65535"},
		{"port not a number", "smtp://u:" + password + "@mail.example.com:abc", testFrom, "invalid SMTP URL"},
		{"bad escape in the password", "smtp://u:" + password + "%zz@mail.example.com", testFrom, "invalid SMTP URL"},
		{"a path", "smtp://u:" + password + "@mail.example.com/inbox", testFrom, "unexpected path"},
		{"a misspelt parameter", "smtp://u:" + password + "@mail.example.com?form=a@b.io", testFrom, "unknown parameter \"form\""},
		{"a bad sender", "smtp://u:" + password + "@mail.example.com?from=nobody", testFrom, "from: \"nobody\" is not an email address"},
		{"an unknown TLS mode", "smtp://u:" + password + "@mail.example.com?tls=sometimes", testFrom, "tls=\"sometimes\""},
		{"tls= on smtps", "smtps://u:" + password + "@mail.example.com?tls=none", testFrom, "smtps:// always uses TLS"},
		{"clear-text auth", "smtp://u:" + password + "@mail.example.com?auth=plain-noenc", testFrom, "auth=\"plain-noenc\""},
		{"a bad timeout", "smtp://u:" + password + "@mail.example.com?timeout=soon", testFrom, "timeout=\"soon\""},
		{"no sender anywhere", "smtp://u:" + password + "@mail.example.com", "", "no sender address"},
		{"a bad default sender", "smtp://u:" + password + "@mail.example.com", "GPUnex", "sender address"},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			s, err := mail.NewSender(c.url, t.TempDir(), c.from)
			require.Nil(t, s)
			require.ErrorContains(t, err, c.want)
			require.NotContains(t, err.Error(), password, "errors never repeat the password")
		})
	}
}

func TestSMTPSenderTellsPermanentFromTemporaryRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc      string
		reply     mailtest.Reply
		permanent bool
	}{
		{"550 to RCPT TO: no such user", mailtest.Reply{Code: 550, Enhanced: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}, true},
		{"553 to RCPT TO: mailbox name not allowed", mailtest.Reply{Code: 553, Enhanced: smtp.EnhancedCode{5, 1, 3}, Message: "Mailbox name not allowed"}, true},
		{"554 to RCPT TO: relaying refused", mailtest.Reply{Code: 554, Enhanced: smtp.EnhancedCode{5, 7, 1}, Message: "Relay access denied"}, true},
		{"554 after DATA: content rejected", mailtest.Reply{Code: 554, Enhanced: smtp.EnhancedCode{5, 6, 0}, Message: "Message rejected", AtData: true}, true},
		{"552 after DATA: too big", mailtest.Reply{Code: 552, Enhanced: smtp.EnhancedCode{5, 3, 4}, Message: "Message too big", AtData: true}, true},
		{"450 to RCPT TO: mailbox unavailable", mailtest.Reply{Code: 450, Enhanced: smtp.EnhancedCode{4, 2, 0}, Message: "Mailbox unavailable"}, false},
		{"451 to RCPT TO: local error", mailtest.Reply{Code: 451, Enhanced: smtp.EnhancedCode{4, 3, 0}, Message: "Try again later"}, false},
		{"452 to RCPT TO: insufficient storage", mailtest.Reply{Code: 452, Enhanced: smtp.EnhancedCode{4, 2, 2}, Message: "Mailbox full"}, false},
		{"421 after DATA: service closing", mailtest.Reply{Code: 421, Enhanced: smtp.EnhancedCode{4, 3, 2}, Message: "Service not available", AtData: true}, false},
		{"451 after DATA: greylisted", mailtest.Reply{Code: 451, Enhanced: smtp.EnhancedCode{4, 7, 1}, Message: "Greylisted", AtData: true}, false},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			srv := startSMTP(t, nil, refusing("ada@example.com", c.reply))
			sender, err := mail.NewSender(srv.URL(), t.TempDir(), testFrom)
			require.NoError(t, err)

			err = sender.Send(context.Background(), approval("ada@example.com"))
			// net/textproto quotes the reply's text after its code.
			e := c.reply.Enhanced
			require.ErrorContains(t, err, fmt.Sprintf("%d %q", c.reply.Code, fmt.Sprintf("%d.%d.%d %s", e[0], e[1], e[2], c.reply.Message)), "the error names the reply")
			require.Equal(t, c.permanent, errors.Is(err, mail.ErrPermanent), "permanent? %v", err)
			require.Empty(t, srv.Messages())

			// The same server still takes mail for someone else.
			require.NoError(t, sender.Send(context.Background(), approval("bob@example.com")))
			require.Len(t, srv.Messages(), 1)
		})
	}
}

func TestSMTPSenderTimeoutIsTemporary(t *testing.T) {
	t.Parallel()
	// A server that accepts the connection and never greets.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()
		_, _ = io.Copy(io.Discard, c) // until the client gives up
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
	})

	sender, err := mail.NewSender("smtp://"+l.Addr().String()+"?timeout=500ms", t.TempDir(), testFrom)
	require.NoError(t, err)
	err = sender.Send(context.Background(), approval("ada@example.com"))
	require.ErrorContains(t, err, "timeout")
	require.NotErrorIs(t, err, mail.ErrPermanent)
}
