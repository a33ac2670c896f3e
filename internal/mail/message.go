package mail

import (
	"errors"
	"fmt"
	netmail "net/mail"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	gomail "github.com/wneessen/go-mail"

	"github.com/gpunex/gpunex/models"
)

// Limits on what a Message may hold, so a bug cannot fill the outbox with
// megabytes per row or a header line longer than RFC 5322 allows.
const (
	maxSubjectLen   = 250
	maxBodyLen      = 256 << 10
	maxKindLen      = 64
	maxDedupeKeyLen = 200
)

// Message is one email to one person.
type Message struct {
	// To is the recipient, "a@example.com" or "Name <a@example.com>".
	To string
	// Subject is a single line.
	Subject string
	// Text is the plain-text body; every email has one.
	Text string
	// HTML is an optional HTML alternative of Text.
	HTML string
	// Language is the language Subject, Text and HTML are written in,
	// sent as the Content-Language header (mail clients offer to
	// translate, screen readers pick their voice by it); empty for none.
	Language models.Language
	// Kind names what the email is about (e.g. "application.approved"),
	// for logs and the X-GPUnex-Kind header; never personal data.
	Kind string
	// DedupeKey, when set, makes Enqueue a no-op if a message with the
	// same key was enqueued before (e.g. "application:42:approved").
	DedupeKey string

	// ID is the outbox row's id, set by the Worker; it makes the
	// Message-ID stable across retries and names the .eml file. Zero for a
	// message sent directly.
	ID int64
	// Created is when the message was enqueued and becomes its Date
	// header; zero means the time of sending.
	Created time.Time

	// recipient, set by ForUser and InLanguage, writes Subject, Text and
	// HTML in the reader's language when the message is enqueued.
	recipient *recipient
}

// ErrInvalidMessage is wrapped by every validation error of a Message.
var ErrInvalidMessage = errors.New("mail: invalid message")

// Validate checks the message can be sent: a parseable recipient address,
// a one-line subject, a text body, a kind, and every field within limits.
func (m Message) Validate() error {
	if m.recipient != nil {
		return fmt.Errorf("%w: not written yet (ForUser and InLanguage messages are written by Outbox.Enqueue)", ErrInvalidMessage)
	}
	if _, err := parseAddress(m.To); err != nil {
		return fmt.Errorf("%w: to: %v", ErrInvalidMessage, err)
	}
	checks := []struct {
		field, value string
		max          int
		oneLine      bool
	}{
		{"subject", m.Subject, maxSubjectLen, true},
		{"text", m.Text, maxBodyLen, false},
		{"kind", m.Kind, maxKindLen, true},
	}
	for _, c := range checks {
		switch {
		case strings.TrimSpace(c.value) == "":
			return fmt.Errorf("%w: %s is empty", ErrInvalidMessage, c.field)
		case utf8.RuneCountInString(c.value) > c.max:
			return fmt.Errorf("%w: %s is longer than %d characters", ErrInvalidMessage, c.field, c.max)
		case c.oneLine && strings.ContainsAny(c.value, "\r\n"):
			return fmt.Errorf("%w: %s must be a single line", ErrInvalidMessage, c.field)
		}
	}
	if m.Language != "" && !m.Language.IsValid() {
		return fmt.Errorf("%w: language %q is not one GPUnex writes in", ErrInvalidMessage, m.Language)
	}
	if utf8.RuneCountInString(m.HTML) > maxBodyLen {
		return fmt.Errorf("%w: html is longer than %d characters", ErrInvalidMessage, maxBodyLen)
	}
	if utf8.RuneCountInString(m.DedupeKey) > maxDedupeKeyLen {
		return fmt.Errorf("%w: dedupe key is longer than %d characters", ErrInvalidMessage, maxDedupeKeyLen)
	}
	return nil
}

// parseAddress accepts exactly one address, with or without a display name.
func parseAddress(s string) (*netmail.Address, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("address is empty")
	}
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("address must be a single line")
	}
	a, err := netmail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not an email address", s)
	}
	return a, nil
}

// build turns m into a go-mail message from the given sender, the one
// representation both the SMTP and the file sink write.
func build(from *netmail.Address, m Message) (*gomail.Msg, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	to, _ := parseAddress(m.To)
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(from)
	msg.ToMailAddress(to)
	msg.Subject(m.Subject)
	created := m.Created
	if created.IsZero() {
		created = time.Now()
	}
	msg.SetDateWithValue(created.UTC())
	if m.ID != 0 {
		// Stable across retries, so a receiver that got a copy before a
		// lost acknowledgement can tell the retry is the same message.
		msg.SetMessageIDWithValue("outbox." + strconv.FormatInt(m.ID, 10) + "." +
			strconv.FormatInt(created.UnixNano(), 36) + "@" + domainOf(from.Address))
	} else {
		msg.SetMessageID()
	}
	msg.SetUserAgent("GPUnex")
	// RFC 3834: tells auto-responders (out-of-office) not to answer.
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	msg.SetGenHeader(gomail.Header("X-GPUnex-Kind"), m.Kind)
	if m.Language != "" {
		msg.SetGenHeader(gomail.HeaderContentLang, string(m.Language))
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 && i < len(addr)-1 {
		return addr[i+1:]
	}
	return "gpunex.invalid"
}
