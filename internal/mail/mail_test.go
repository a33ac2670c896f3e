package mail_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"go.uber.org/goleak"

	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/mail/mailtest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// TestMain fails the package if a worker, SMTP connection or server
// goroutine outlives the tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// t0 is when every test's manual clock starts.
var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

const testFrom = "GPUnex <noreply@gpunex.io>"

// smtpServer is mailtest's server with the short names these tests use.
type smtpServer struct {
	*mailtest.Server
	addr string
	port int
}

type smtpOption = mailtest.Option

var (
	withAuth     = mailtest.WithAuth
	failingFirst = mailtest.FailingFirst
	refusing     = mailtest.Refusing
)

// startSMTP starts a plain SMTP server, or, with cfg, an implicit-TLS one.
func startSMTP(t *testing.T, cfg *tls.Config, opts ...smtpOption) *smtpServer {
	t.Helper()
	s := mailtest.Start(t, cfg, opts...)
	return &smtpServer{Server: s, addr: s.Addr, port: s.Port}
}

// selfSignedTLS returns a server config for 127.0.0.1 and a client config
// trusting it.
func selfSignedTLS(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gpunex test smtp"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}
	client = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return server, client
}

// syncBuffer is a log sink safe for the worker and the test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// bundle is what a worker test needs: a database, a manual clock, a real
// SMTP server, and an outbox and worker wired to them as main wires them.
type bundle struct {
	db     *store.DB
	clock  *clock.Manual
	smtp   *smtpServer
	outbox *mail.Outbox
	worker *mail.Worker
	logs   *syncBuffer
}

// setup starts an SMTP server and builds the outbox and worker through
// NewSender, as --smtp-url would.
func setup(t *testing.T, db *store.DB, cfg mail.WorkerConfig, opts ...smtpOption) *bundle {
	t.Helper()
	b := &bundle{db: db, clock: clock.NewManual(t0), smtp: startSMTP(t, nil, opts...), logs: &syncBuffer{}}
	url := "smtp://127.0.0.1:" + strconv.Itoa(b.smtp.port)
	if user, pass := b.smtp.Credentials(); user != "" {
		url = "smtp://" + user + ":" + pass + "@127.0.0.1:" + strconv.Itoa(b.smtp.port) + "?auth=plain"
	}
	sender, err := mail.NewSender(url, t.TempDir(), testFrom)
	require.NoError(t, err)
	logger := slog.New(slog.NewJSONHandler(b.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b.worker = mail.NewWorker(mail.WorkerDeps{DB: db, Sender: sender, Clock: b.clock, Logger: logger}, cfg)
	b.outbox = mail.NewOutbox(b.clock, b.worker.Kick)
	return b
}

// enqueue commits one message in its own transaction.
func (b *bundle) enqueue(t *testing.T, msg mail.Message) {
	t.Helper()
	err := b.db.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		return b.outbox.Enqueue(ctx, tx, msg)
	})
	require.NoError(t, err)
}

// row loads the only outbox row with this subject.
func (b *bundle) row(t *testing.T, subject string) *models.OutboxEmail {
	t.Helper()
	r := new(models.OutboxEmail)
	require.NoError(t, b.db.NewSelect().Model(r).Where("subject = ?", subject).Scan(context.Background()))
	return r
}

// sendDue runs one worker pass and returns how many emails it delivered.
func (b *bundle) sendDue(t *testing.T) int {
	t.Helper()
	n, err := b.worker.SendDue(context.Background())
	require.NoError(t, err)
	return n
}

func approval(to string) mail.Message {
	return mail.Message{
		To:      to,
		Subject: "Your GPUnex application was approved",
		Text:    "Hello Ada,\n\nYour application is approved. Install the agent with:\n\ncurl -fsSL https://gpunex.example/agent/install.sh | sh\n",
		HTML:    "<p>Hello Ada,</p><p>Your application is <b>approved</b>.</p>",
		Kind:    "application.approved",
	}
}

// parse decodes a received or written message as a mail client would,
// and checks it is a text body with, at most, an HTML alternative.
func parse(t *testing.T, raw []byte) *mailtest.Decoded {
	t.Helper()
	d, err := mailtest.Decode(raw)
	require.NoError(t, err)
	if strings.HasPrefix(d.MediaType, "multipart/") {
		require.Equal(t, "multipart/alternative", d.MediaType)
		for _, part := range d.Parts {
			require.Contains(t, []string{"text/plain", "text/html"}, part.MediaType, "unexpected part")
		}
	}
	return d
}
