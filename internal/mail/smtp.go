package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	netmail "net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// TLS modes of an smtp:// URL (smtps:// is always implicit TLS).
const (
	// TLSOpportunistic uses STARTTLS when the server offers it.
	TLSOpportunistic = "opportunistic"
	// TLSMandatory refuses to send unless STARTTLS succeeds.
	TLSMandatory = "mandatory"
	// TLSNone never encrypts; for a relay on the same host only.
	TLSNone = "none"
)

// authMechanisms are the auth= values accepted, mapped to go-mail's types.
// The -NOENC variants, which send a password in clear text to a remote
// host, are left out on purpose.
var authMechanisms = map[string]gomail.SMTPAuthType{
	"auto":          gomail.SMTPAuthAutoDiscover,
	"plain":         gomail.SMTPAuthPlain,
	"login":         gomail.SMTPAuthLogin,
	"cram-md5":      gomail.SMTPAuthCramMD5,
	"scram-sha-1":   gomail.SMTPAuthSCRAMSHA1,
	"scram-sha-256": gomail.SMTPAuthSCRAMSHA256,
	"xoauth2":       gomail.SMTPAuthXOAUTH2,
}

// SMTPConfig is a parsed --smtp-url.
type SMTPConfig struct {
	Host string
	Port int
	// Username and Password, when Username is set, authenticate with Auth.
	Username string
	Password string
	// Auth is one of auto (the default: the strongest mechanism the server
	// offers that is safe on this connection), plain, login, cram-md5,
	// scram-sha-1, scram-sha-256, xoauth2.
	Auth string
	// ImplicitTLS is true for smtps://: TLS from the first byte.
	ImplicitTLS bool
	// TLS is the STARTTLS mode of smtp://: TLSOpportunistic (default),
	// TLSMandatory or TLSNone.
	TLS string
	// From is the sender address; may hold a display name.
	From string
	// Timeout bounds connecting and each SMTP command (default 15s).
	Timeout time.Duration
	// TLSConfig overrides the TLS settings (tests trust their own CA with
	// it); nil verifies the server against the system roots.
	TLSConfig *tls.Config
}

// ParseSMTPURL reads smtp://[user[:pass]@]host[:port][?from=&tls=&auth=&timeout=]
// or smtps://…. The port defaults to 587 (submission) for smtp and 465 for
// smtps. Errors never repeat the password.
func ParseSMTPURL(raw string) (SMTPConfig, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, password included: keep its cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return SMTPConfig{}, fmt.Errorf("mail: invalid SMTP URL: %v", redactUserinfo(raw, err.Error()))
	}
	cfg := SMTPConfig{Auth: "auto", TLS: TLSOpportunistic, Timeout: 15 * time.Second}
	switch u.Scheme {
	case "smtp":
		cfg.Port = 587
	case "smtps":
		cfg.Port = 465
		cfg.ImplicitTLS = true
	default:
		return SMTPConfig{}, fmt.Errorf("mail: invalid SMTP URL: scheme must be smtp:// or smtps://, not %q", u.Scheme)
	}
	cfg.Host = u.Hostname()
	if cfg.Host == "" {
		return SMTPConfig{}, errors.New("mail: invalid SMTP URL: no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return SMTPConfig{}, fmt.Errorf("mail: invalid SMTP URL: port %q is not between 1 and 65535", p)
		}
		cfg.Port = n
	}
	if u.Path != "" && u.Path != "/" {
		return SMTPConfig{}, errors.New("mail: invalid SMTP URL: unexpected path (settings go in the query: ?from=…&tls=…)")
	}
	if u.User != nil {
		cfg.Username = u.User.Username()
		cfg.Password, _ = u.User.Password()
	}
	q := u.Query()
	for key := range q {
		switch key {
		case "from", "tls", "auth", "timeout":
		default:
			return SMTPConfig{}, fmt.Errorf("mail: invalid SMTP URL: unknown parameter %q (want from, tls, auth or timeout)", key)
		}
	}
	if from := q.Get("from"); from != "" {
		if _, err := parseAddress(from); err != nil {
			return SMTPConfig{}, fmt.Errorf("mail: invalid SMTP URL: from: %v", err)
		}
		cfg.From = from
	}
	if mode := q.Get("tls"); mode != "" {
		if cfg.ImplicitTLS {
			return SMTPConfig{}, errors.New("mail: invalid SMTP URL: tls= applies to smtp:// only; smtps:// always uses TLS")
		}
		switch mode {
		case TLSOpportunistic, TLSMandatory, TLSNone:
			cfg.TLS = mode
		default:
			return SMTPConfig{}, fmt.Errorf("mail: invalid SMTP URL: tls=%q (want %s, %s or %s)", mode, TLSOpportunistic, TLSMandatory, TLSNone)
		}
	}
	if auth := q.Get("auth"); auth != "" {
		if _, ok := authMechanisms[strings.ToLower(auth)]; !ok {
			return SMTPConfig{}, fmt.Errorf("mail: invalid SMTP URL: auth=%q (want auto, plain, login, cram-md5, scram-sha-1, scram-sha-256 or xoauth2)", auth)
		}
		cfg.Auth = strings.ToLower(auth)
	}
	if t := q.Get("timeout"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return SMTPConfig{}, fmt.Errorf("mail: invalid SMTP URL: timeout=%q is not a positive duration such as 30s", t)
		}
		cfg.Timeout = d
	}
	return cfg, nil
}

// redactUserinfo removes the password of raw from text, should a parser
// have quoted it.
func redactUserinfo(raw, text string) string {
	rest, ok := strings.CutPrefix(raw, "smtp://")
	if !ok {
		rest, ok = strings.CutPrefix(raw, "smtps://")
	}
	if !ok {
		return text
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return text
	}
	if _, pass, ok := strings.Cut(rest[:at], ":"); ok && pass != "" {
		text = strings.ReplaceAll(text, pass, "xxxxx")
	}
	return text
}

// SMTPSender sends each message over a fresh SMTP connection through
// go-mail. One connection per message keeps it safe for concurrent use and
// free of idle connections a server would time out.
type SMTPSender struct {
	client   *gomail.Client
	from     *netmail.Address
	password string
}

// NewSMTPSender checks cfg and returns a sender for it. It does not
// connect: a mail server that is down at start-up delays emails, it does
// not stop GPUnex.
func NewSMTPSender(cfg SMTPConfig) (*SMTPSender, error) {
	if cfg.Host == "" {
		return nil, errors.New("mail: SMTP host is empty")
	}
	if cfg.From == "" {
		return nil, errors.New("mail: no sender address (set from= in the SMTP URL)")
	}
	from, err := parseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail: sender address: %w", err)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	tlsConfig := cfg.TLSConfig
	if tlsConfig == nil {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	} else {
		tlsConfig = tlsConfig.Clone()
	}
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = cfg.Host
	}
	opts := []gomail.Option{
		gomail.WithPort(cfg.Port),
		gomail.WithTimeout(cfg.Timeout),
		gomail.WithTLSConfig(tlsConfig),
	}
	if cfg.ImplicitTLS {
		opts = append(opts, gomail.WithSSL())
	} else {
		policy := gomail.TLSOpportunistic
		switch cfg.TLS {
		case TLSMandatory:
			policy = gomail.TLSMandatory
		case TLSNone:
			policy = gomail.NoTLS
		}
		opts = append(opts, gomail.WithTLSPolicy(policy))
	}
	if cfg.Username != "" {
		mech := cfg.Auth
		if mech == "" {
			mech = "auto"
		}
		authType, ok := authMechanisms[mech]
		if !ok {
			return nil, fmt.Errorf("mail: unknown SMTP auth mechanism %q", cfg.Auth)
		}
		opts = append(opts, gomail.WithSMTPAuth(authType),
			gomail.WithUsername(cfg.Username), gomail.WithPassword(cfg.Password))
	}
	client, err := gomail.NewClient(cfg.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("mail: SMTP client: %v", redact(err.Error(), cfg.Password))
	}
	return &SMTPSender{client: client, from: from, password: cfg.Password}, nil
}

// Send delivers msg, returning an error that never holds the password.
// The error wraps ErrPermanent when the server refused msg for good (see
// refusedForGood), and ErrInvalidMessage when msg cannot be built.
func (s *SMTPSender) Send(ctx context.Context, msg Message) error {
	m, err := build(s.from, msg)
	if err != nil {
		return err
	}
	conn, err := s.client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		// Connecting, TLS and authentication concern the server or our
		// account, never this message: always worth a retry.
		return fmt.Errorf("mail: smtp connect: %s", redact(err.Error(), s.password))
	}
	defer func() { _ = s.client.CloseWithSMTPClient(conn) }()
	if err := s.client.SendWithSMTPClient(conn, m); err != nil {
		text := redact(err.Error(), s.password)
		if refusedForGood(err) {
			return fmt.Errorf("%w: smtp send: %s", ErrPermanent, text)
		}
		return fmt.Errorf("mail: smtp send: %s", text)
	}
	return nil
}

// refusedForGood reports whether err, from go-mail's SendWithSMTPClient,
// means this message can never be sent as it is. go-mail reports each
// failed step as a *gomail.SendError whose Reason names the step,
// ErrorCode the server's reply code (0 when the server did not reply) and
// IsTemp whether the reply was a 4xx.
//
// Permanent: a 5xx reply to RCPT TO or DATA (the recipient or the content
// is refused; RFC 5321 §4.2.1 tells a client not to repeat such a
// request), and go-mail failing to take a sender or recipient out of the
// message. Everything else is retried: 4xx replies, I/O errors and
// timeouts (code 0), and a 5xx to MAIL FROM, which refuses our sender
// address or account for every email alike until a person fixes the
// configuration.
func refusedForGood(err error) bool {
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Reason {
	case gomail.ErrGetSender, gomail.ErrGetRcpts:
		return true
	case gomail.ErrSMTPRcptTo, gomail.ErrSMTPData, gomail.ErrSMTPDataClose:
		return !se.IsTemp() && se.ErrorCode()/100 == 5
	}
	return false
}

// redact replaces secret in text; errors from the SMTP conversation are
// stored and logged, so they must never carry it.
func redact(text, secret string) string {
	if secret == "" {
		return text
	}
	return strings.ReplaceAll(text, secret, "xxxxx")
}
