package installer

import (
	"bytes"
	_ "embed"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/template"
	"unicode"

	"github.com/gpunex/gpunex/internal/auth"
)

// Path is where the server mounts [Handler].
const Path = "/agent/install.sh"

// DefaultAgentImage is the agent container image the installer starts when
// the server names none.
const DefaultAgentImage = "ghcr.io/gpunex/gpunex-agent:latest"

// Command is the one line a provider runs on a GPU host to install the
// agent: it fetches the script from the platform at serverURL (its public
// base URL; a trailing slash is dropped) and runs it as root, since it
// writes /etc/gpunex and starts containers. The script asks for the agent
// token on the terminal with echo off. The token is never part of the
// command: every user of the host can read a command line (ps,
// /proc/<pid>/cmdline) for as long as it runs, and the shell keeps it in
// its history.
func Command(serverURL string) string {
	return fmt.Sprintf("curl -fsSL %s%s | sudo sh", strings.TrimRight(serverURL, "/"), Path)
}

// DefaultTokenFile is the token file [TokenFileCommand] suggests: in
// root's home, which other users cannot read.
const DefaultTokenFile = "/root/gpunex-token"

// needsQuoting says whether r makes a path need shell quotes.
func needsQuoting(r rune) bool {
	switch {
	case r == '/', r == '.', r == '-', r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return true
}

// TokenFileCommand is [Command] for hosts without a terminal to type the
// token on (cloud-init, configuration management): the script reads the
// token from the file at path, which the provider writes beforehand,
// readable by root only. path is shell-quoted when it needs to be.
func TokenFileCommand(serverURL, path string) string {
	if path == "" || strings.ContainsFunc(path, needsQuoting) {
		path = shellQuote(path)
	}
	return fmt.Sprintf("curl -fsSL %s%s | sudo sh -s -- --token-file %s", strings.TrimRight(serverURL, "/"), Path, path)
}

// ContentType is the media type the installer is served with.
const ContentType = "text/x-shellscript; charset=utf-8"

// agentTokenPrefix starts every agent token; the script refuses other
// tokens before touching the host.
const agentTokenPrefix = auth.AgentTokenPrefix

//go:embed install.sh
var scriptSource string

var scriptTemplate = template.Must(template.New("install.sh").
	Funcs(template.FuncMap{"shquote": shellQuote}).
	Option("missingkey=error").
	Parse(scriptSource))

// Handler serves the installer script for GET and HEAD requests (mount it
// at [Path]). serverURL returns the public base URL of the platform for a
// request, e.g. "https://gpunex.example.com"; nil means [RequestServerURL].
// agentImage is the container image the script starts; "" means
// [DefaultAgentImage]. A server URL that is not an absolute http(s) URL
// without spaces or control characters is refused with 400 Bad Request.
func Handler(serverURL func(r *http.Request) string, agentImage string) http.Handler {
	if serverURL == nil {
		serverURL = RequestServerURL
	}
	if agentImage == "" {
		agentImage = DefaultAgentImage
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		script, err := Script(serverURL(r), agentImage)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h := w.Header()
		h.Set("Content-Type", ContentType)
		h.Set("Content-Length", strconv.Itoa(len(script)))
		// The script names the host it was fetched from: never cache it
		// across hosts.
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(script)
	})
}

// RequestServerURL derives the platform's public base URL from a request:
// the Host header, with the scheme from X-Forwarded-Proto (its first value,
// when "http" or "https"), else https when the request came over TLS, else
// http. Use it only where a trusted proxy sets X-Forwarded-Proto; otherwise
// pass [Handler] a function returning the configured public URL.
func RequestServerURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p != "" {
		first, _, _ := strings.Cut(p, ",")
		switch first = strings.ToLower(strings.TrimSpace(first)); first {
		case "http", "https":
			scheme = first
		}
	}
	return scheme + "://" + r.Host
}

// Script renders the installer for a platform base URL and an agent image.
// A trailing slash on serverURL is dropped. It fails when serverURL is not
// an absolute http(s) URL, or either value is empty or holds spaces or
// control characters.
func Script(serverURL, agentImage string) ([]byte, error) {
	serverURL = strings.TrimRight(serverURL, "/")
	if err := checkServerURL(serverURL); err != nil {
		return nil, err
	}
	if agentImage == "" || strings.IndexFunc(agentImage, badRune) >= 0 {
		return nil, fmt.Errorf("installer: invalid agent image %q", agentImage)
	}
	var buf bytes.Buffer
	err := scriptTemplate.Execute(&buf, map[string]string{
		"ServerURL":   serverURL,
		"AgentImage":  agentImage,
		"TokenPrefix": agentTokenPrefix,
		"Path":        Path,
	})
	if err != nil {
		return nil, fmt.Errorf("installer: render script: %w", err)
	}
	return buf.Bytes(), nil
}

func checkServerURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("installer: invalid server URL %q: %w", s, err)
	case strings.IndexFunc(s, badRune) >= 0:
		return fmt.Errorf("installer: invalid server URL %q: spaces or control characters", s)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("installer: invalid server URL %q: scheme must be http or https", s)
	case u.Host == "":
		return fmt.Errorf("installer: invalid server URL %q: no host", s)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.Contains(s, "#"):
		return fmt.Errorf("installer: invalid server URL %q: user info, query or fragment", s)
	}
	return nil
}

// badRune reports characters that must not reach the script or the agent's
// env file (one KEY=value per line).
func badRune(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar
}

// shellQuote quotes s as one POSIX sh word in single quotes; each embedded
// single quote closes the quoted part, is escaped with a backslash, and
// opens a new one.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
