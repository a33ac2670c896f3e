package mail

import (
	"context"
	"path/filepath"
)

// Sender delivers one message now. Implementations are safe for concurrent
// use; an error means the message may not have arrived and should be
// retried.
type Sender interface {
	Send(ctx context.Context, msg Message) error
}

var (
	_ Sender = (*SMTPSender)(nil)
	_ Sender = (*FileSender)(nil)
)

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
