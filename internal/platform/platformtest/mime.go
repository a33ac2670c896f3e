package platformtest

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
)

// mimeDecoder turns a message's encoded header and (multipart) body into
// plain text for assertions.
type mimeDecoder struct{}

func (mimeDecoder) header(s string) string {
	out, err := new(mime.WordDecoder).DecodeHeader(s)
	if err != nil {
		return s
	}
	return out
}

func (d mimeDecoder) body(h mail.Header, raw []byte) string {
	ct := h.Get("Content-Type")
	mediaType, params, _ := mime.ParseMediaType(ct)
	if strings.HasPrefix(mediaType, "multipart/") {
		var parts []string
		mr := multipart.NewReader(bytes.NewReader(raw), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			b, _ := io.ReadAll(p)
			parts = append(parts, d.decode(p.Header.Get("Content-Transfer-Encoding"), b))
		}
		return strings.Join(parts, "\n")
	}
	return d.decode(h.Get("Content-Transfer-Encoding"), raw)
}

func (mimeDecoder) decode(enc string, b []byte) string {
	switch strings.ToLower(enc) {
	case "quoted-printable":
		out, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(b)))
		if err == nil {
			return string(out)
		}
	case "base64":
		out, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(b)), ""))
		if err == nil {
			return string(out)
		}
	}
	return string(b)
}
