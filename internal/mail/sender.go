package mail

import (
	"context"
	"errors"
	"path/filepath"
)

// Sender delivers one message now. Implementations are safe for concurrent
// use. An error means the message may not have arrived and should be
// retried, unless it wraps ErrPermanent or ErrInvalidMessage: then no retry
// can deliver it.
type Sender interface {
	Send(ctx context.Context, msg Message) error
}

// ErrPermanent is wrapped by a Sender's error when retrying cannot help,
// e.g. the mail server refused the recipient with a 5xx reply. The Worker
// marks such an email failed after its first attempt.
var ErrPermanent = errors.New("mail: permanent failure")

// isPermanent reports whether err, from a Sender, means the message can
// never be sent as it is: refused for good, or not even buildable.
func isPermanent(err error) bool {
	return errors.Is(err, ErrPermanent) || errors.Is(err, ErrInvalidMessage)
}

var (
	_ Sender = (*SMTPSender)(nil)
	_ Sender = (*FileSender)(nil)
)

// DefaultFrom is the sender of platform email when --mail-from names none.
const DefaultFrom = "GPUnex <noreply@gpunex.local>"

// NewSender returns the sender that --smtp-url selects: an SMTPSender for
// an smtp:// or smtps:// URL, or, when smtpURL is empty, a FileSender
// writing .eml files into <dataDir>/mail/outbox. from is the sender
// address, e.g. "GPUnex <noreply@gpunex.io>"; a from parameter in the URL
// overrides it. Errors never repeat the URL's password.
func NewSender(smtpURL, dataDir, from string) (Sender, error) {
	if smtpURL == "" {
		return NewFileSender(filepath.Join(dataDir, "mail", "outbox"), from)
	}
	cfg, err := ParseSMTPURL(smtpURL)
	if err != nil {
		return nil, err
	}
	if cfg.From == "" {
		cfg.From = from
	}
	return NewSMTPSender(cfg)
}
