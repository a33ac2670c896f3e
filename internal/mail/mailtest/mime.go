package mailtest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
)

// Decoded is a message as a mail client shows it: its headers, its subject
// with the RFC 2047 words decoded, and its body parts with their transfer
// encodings undone.
type Decoded struct {
	Header  mail.Header
	Subject string
	// MediaType is the message's own, e.g. "text/plain" or
	// "multipart/alternative".
	MediaType string
	// Parts are the body's parts in order; a message that is not
	// multipart has one, of MediaType.
	Parts []Part
}

// Part is one decoded body part.
type Part struct {
	// MediaType is e.g. "text/plain" or "text/html".
	MediaType string
	// Body is the decoded text, with CRLF line ends turned into LF.
	Body string
}

// Decode parses an RFC 5322 message as it came over the wire or was
// written to an .eml file: headers, RFC 2047 words, one level of
// multipart, and quoted-printable or base64 bodies.
func Decode(raw []byte) (*Decoded, error) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("mailtest: unable to read the message: %w", err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		return nil, fmt.Errorf("mailtest: unable to decode the subject: %w", err)
	}
	mediaType, params, err := parseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	d := &Decoded{Header: m.Header, Subject: subject, MediaType: mediaType}
	if !strings.HasPrefix(mediaType, "multipart/") {
		body, err := decodeBody(m.Header.Get("Content-Transfer-Encoding"), m.Body)
		if err != nil {
			return nil, err
		}
		d.Parts = []Part{{MediaType: mediaType, Body: body}}
		return d, nil
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return d, nil
		}
		if err != nil {
			return nil, fmt.Errorf("mailtest: unable to read part %d: %w", len(d.Parts)+1, err)
		}
		partType, _, err := parseMediaType(p.Header.Get("Content-Type"))
		if err != nil {
			return nil, err
		}
		// multipart.Reader has already undone quoted-printable, and
		// dropped the header that said so.
		body, err := decodeBody(p.Header.Get("Content-Transfer-Encoding"), p)
		if err != nil {
			return nil, err
		}
		d.Parts = append(d.Parts, Part{MediaType: partType, Body: body})
	}
}

// Text is the body of the first text/plain part, or "" when there is none.
func (d *Decoded) Text() string { return d.first("text/plain") }

// HTML is the body of the first text/html part, or "" when there is none.
func (d *Decoded) HTML() string { return d.first("text/html") }

// Body is every part's body joined by newlines, for assertions that look
// for a text anywhere in the message.
func (d *Decoded) Body() string {
	bodies := make([]string, len(d.Parts))
	for i, p := range d.Parts {
		bodies[i] = p.Body
	}
	return strings.Join(bodies, "\n")
}

func (d *Decoded) first(mediaType string) string {
	for _, p := range d.Parts {
		if p.MediaType == mediaType {
			return p.Body
		}
	}
	return ""
}

// parseMediaType reads a Content-Type; an absent one is text/plain, as
// RFC 2045 §5.2 says.
func parseMediaType(contentType string) (string, map[string]string, error) {
	if contentType == "" {
		return "text/plain", nil, nil
	}
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", nil, fmt.Errorf("mailtest: Content-Type %q: %w", contentType, err)
	}
	return mediaType, params, nil
}

func decodeBody(encoding string, r io.Reader) (string, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		// The decoder skips the CRLFs between base64 lines.
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("mailtest: unable to decode a %s body: %w", encoding, err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n"), nil
}
