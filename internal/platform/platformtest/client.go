package platformtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"testing"

	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/models"

	"github.com/stretchr/testify/require"
)

// Client speaks GraphQL over HTTP to a test server. As the SPA it keeps
// cookies and sends the CSRF header; as an API client it sends a bearer
// token.
type Client struct {
	t      testing.TB
	URL    string
	HTTP   *http.Client
	Token  string
	AsSPA  bool
	Header http.Header
	// server is the server the client talks to: SignUp reads the
	// confirmation email from its outbox.
	server *Server
}

// NewSPAClient returns a client that behaves like the SPA in a browser.
func (s *Server) NewSPAClient(t testing.TB) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{t: t, URL: s.URL, HTTP: &http.Client{Jar: jar}, AsSPA: true, Header: http.Header{}, server: s}
}

// NewAPIClient returns a client that authenticates with a bearer token.
func (s *Server) NewAPIClient(t testing.TB, token string) *Client {
	return &Client{t: t, URL: s.URL, HTTP: &http.Client{}, Token: token, Header: http.Header{}, server: s}
}

// Response is a GraphQL response.
type Response struct {
	Status int
	Header http.Header
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Path       []any          `json:"path"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// Codes lists the extensions.code of every error.
func (r *Response) Codes() []string {
	var out []string
	for _, e := range r.Errors {
		c, _ := e.Extensions["code"].(string)
		out = append(out, c)
	}
	return out
}

// Decode unmarshals data into v.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.Data, v), "data: %s", r.Data)
}

// Raw sends body to /graphql as is and returns the response.
func (c *Client) Raw(method, contentType string, body []byte, query string) *Response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.URL+"/graphql"+query, bytes.NewReader(body))
	require.NoError(c.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range c.Header {
		req.Header[k] = v
	}
	if c.AsSPA {
		req.Header.Set(api.CSRFHeader, "1")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	res, err := c.HTTP.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	out := &Response{Status: res.StatusCode, Header: res.Header}
	if len(b) > 0 && b[0] == '{' {
		require.NoError(c.t, json.Unmarshal(b, out), "body: %s", b)
	}
	return out
}

// Do posts a query with variables.
func (c *Client) Do(query string, vars map[string]any) *Response {
	c.t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(c.t, err)
	return c.Raw(http.MethodPost, "application/json", body, "")
}

// MustDo posts a query, requires no errors and decodes data into v.
func (c *Client) MustDo(v any, query string, vars map[string]any) {
	c.t.Helper()
	r := c.Do(query, vars)
	require.Empty(c.t, r.Errors, "errors: %+v", r.Errors)
	require.Equal(c.t, http.StatusOK, r.Status)
	if v != nil {
		r.Decode(c.t, v)
	}
}

// SignUpMutation is the signUp operation tests use.
const SignUpMutation = `mutation SignUp($input: SignUpInput!) {
  signUp(input: $input) { token user { id email name roles } userErrors { field message code } confirmationSent }
}`

// ConfirmEmailMutation is the confirmEmail operation tests use.
const ConfirmEmailMutation = `mutation ConfirmEmail($token: String!) {
  confirmEmail(token: $token) { token user { id email name roles } userErrors { field message code } confirmationSent }
}`

// SignUp creates an account through the API the way a person does: signUp,
// then the link of the confirmation email (read from the server's outbox),
// then confirmEmail. It returns the user id and (for an API client) the
// bearer token; an API client keeps the token for its next requests.
func (c *Client) SignUp(email, password, name string) (id, token string) {
	c.t.Helper()
	var out struct {
		SignUp struct {
			UserErrors       []struct{ Field, Code string }
			ConfirmationSent bool
		}
	}
	c.MustDo(&out, SignUpMutation, map[string]any{"input": map[string]any{"email": email, "password": password, "name": name}})
	require.Empty(c.t, out.SignUp.UserErrors)
	require.True(c.t, out.SignUp.ConfirmationSent)
	require.NotNil(c.t, c.server, "SignUp needs a client made by a Server")
	return c.ConfirmEmail(c.server.ConfirmationToken(c.t, email))
}

// ConfirmEmail confirms a sign-up with the token of its email, requiring
// success, and returns the new user's id and (for an API client) the bearer
// token, which an API client keeps for its next requests.
func (c *Client) ConfirmEmail(confirmation string) (id, token string) {
	c.t.Helper()
	var out struct {
		ConfirmEmail struct {
			Token      *string
			User       *struct{ ID string }
			UserErrors []struct{ Field, Code string }
		}
	}
	c.MustDo(&out, ConfirmEmailMutation, map[string]any{"token": confirmation})
	require.Empty(c.t, out.ConfirmEmail.UserErrors)
	require.NotNil(c.t, out.ConfirmEmail.User)
	if out.ConfirmEmail.Token != nil {
		token = *out.ConfirmEmail.Token
		if !c.AsSPA {
			c.Token = token
		}
	}
	return out.ConfirmEmail.User.ID, token
}

// confirmationLink finds the token in a confirmation email's link.
var confirmationLink = regexp.MustCompile(regexp.QuoteMeta(auth.ConfirmEmailPath) + `\?token=(` + auth.SignUpTokenPrefix + `[A-Za-z0-9_-]+)`)

// ConfirmationToken returns the token of the newest confirmation email
// enqueued for email (the outbox row, whether or not it was sent yet).
func (s *Server) ConfirmationToken(t testing.TB, email string) string {
	t.Helper()
	var row models.OutboxEmail
	err := s.Platform.DB.NewSelect().Model(&row).
		Where("to_address = ?", auth.NormalizeEmail(email)).Where("kind = ?", auth.MailKindConfirmEmail).
		OrderExpr("id DESC").Limit(1).Scan(context.Background())
	require.NoError(t, err, "no confirmation email to %s", email)
	return TokenInMail(t, row.TextBody)
}

// TokenInMail returns the confirmation token of the link in body.
func TokenInMail(t testing.TB, body string) string {
	t.Helper()
	m := confirmationLink.FindStringSubmatch(body)
	require.NotNil(t, m, "no confirmation link in %q", body)
	return m[1]
}
