package mailtest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/mail/mailtest"
)

// crlf writes lines as they travel over SMTP.
func crlf(lines ...string) []byte { return []byte(strings.Join(lines, "\r\n")) }

func TestDecode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc      string
		raw       []byte
		subject   string
		mediaType string
		parts     []mailtest.Part
	}{
		{
			desc: "quoted-printable text with an encoded subject",
			raw: crlf("Subject: =?UTF-8?q?Gr=C3=BC=C3=9Fe?=", "Content-Type: text/plain; charset=UTF-8",
				"Content-Transfer-Encoding: quoted-printable", "", "Gr=C3=BC=C3=9Fe, 100=3D sure, a long =", "line", "two"),
			subject: "Grüße", mediaType: "text/plain",
			parts: []mailtest.Part{{MediaType: "text/plain", Body: "Grüße, 100= sure, a long line\ntwo"}},
		},
		{
			desc:    "no Content-Type is plain text",
			raw:     crlf("Subject: Hello", "", "Hi"),
			subject: "Hello", mediaType: "text/plain",
			parts: []mailtest.Part{{MediaType: "text/plain", Body: "Hi"}},
		},
		{
			desc: "multipart/alternative with quoted-printable text and base64 HTML",
			raw: crlf("Subject: Approved", `Content-Type: multipart/alternative; boundary="b"`, "",
				"--b", "Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: quoted-printable", "",
				"curl -fsSL https://gpunex.example/agent/install.sh =3D ok",
				"--b", "Content-Type: text/html; charset=UTF-8", "Content-Transfer-Encoding: base64", "",
				"PHA+SGVsbG8sIDxi", "PkFkYTwvYj48L3A+",
				"--b--", ""),
			subject: "Approved", mediaType: "multipart/alternative",
			parts: []mailtest.Part{
				{MediaType: "text/plain", Body: "curl -fsSL https://gpunex.example/agent/install.sh = ok"},
				{MediaType: "text/html", Body: "<p>Hello, <b>Ada</b></p>"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			d, err := mailtest.Decode(c.raw)
			require.NoError(t, err)
			require.Equal(t, c.subject, d.Subject)
			require.Equal(t, c.mediaType, d.MediaType)
			require.Equal(t, c.parts, d.Parts)
			require.Equal(t, c.parts[0].Body, d.Text())
			bodies := make([]string, len(c.parts))
			for i, p := range c.parts {
				bodies[i] = p.Body
			}
			require.Equal(t, strings.Join(bodies, "\n"), d.Body())
		})
	}
}

func TestDecodeReportsAMalformedMessage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		raw  []byte
	}{
		{"no header block", []byte("not a message")},
		{"a bad Content-Type", crlf("Subject: x", "Content-Type: /", "", "body")},
		{"bad base64", crlf("Subject: x", "Content-Transfer-Encoding: base64", "", "!!!")},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			_, err := mailtest.Decode(c.raw)
			require.Error(t, err)
		})
	}
}
