package docker_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/require"
)

// apiVersion is the Engine API version the tests pin (Docker 27).
const apiVersion = "1.47"

// request is one call the engine received.
type request struct {
	Method string
	Path   string // without the /v1.xx prefix
	Query  url.Values
	Body   []byte
}

// String is "METHOD /path" for sequence assertions.
func (r request) String() string { return r.Method + " " + r.Path }

// fakeEngine is a recording HTTP server that speaks enough of the Docker
// Engine API for the runtime: images, networks and containers with their
// labels and states, networks with their subnets, kept in memory. The real moby client talks to it over
// loopback, so everything up to the HTTP boundary is the production path.
type fakeEngine struct {
	t      *testing.T
	server *httptest.Server

	mu         sync.Mutex
	requests   []request
	images     map[string]bool
	pullErrors map[string]string         // image -> error message in the pull stream
	networks   map[string]*fakeNetwork   // by name
	containers map[string]*fakeContainer // by name
	failCreate string                    // message for a 500 on container create
}

// fakeNetwork is what the engine keeps of a network: its labels and the
// subnets of its IPAM configuration.
type fakeNetwork struct {
	Labels  map[string]string
	Subnets []netip.Prefix
}

type fakeContainer struct {
	ID     string
	Name   string
	Config container.Config
	Host   container.HostConfig
	State  container.State
}

func newFakeEngine(t *testing.T) *fakeEngine {
	t.Helper()
	e := &fakeEngine{
		t:          t,
		images:     map[string]bool{},
		pullErrors: map[string]string{},
		networks:   map[string]*fakeNetwork{},
		containers: map[string]*fakeContainer{},
	}
	e.server = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.server.Close)
	return e
}

// client returns a new moby client pointed at the fake engine, as a
// restarted agent would build one.
func (e *fakeEngine) client(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.New(
		client.WithHost("tcp://"+strings.TrimPrefix(e.server.URL, "http://")),
		client.WithAPIVersion(apiVersion),
		client.WithHTTPClient(e.server.Client()),
	)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// calls returns the recorded requests as "METHOD /path" strings.
func (e *fakeEngine) calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, len(e.requests))
	for i, r := range e.requests {
		out[i] = r.String()
	}
	return out
}

// last returns the last recorded request with this method and path.
func (e *fakeEngine) last(method, path string) request {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.requests) - 1; i >= 0; i-- {
		if r := e.requests[i]; r.Method == method && r.Path == path {
			return r
		}
	}
	e.t.Fatalf("no %s %s request; got %v", method, path, e.requests)
	return request{}
}

// with runs fn on the engine's state under its lock, for tests to arrange
// or read it between requests.
func (e *fakeEngine) with(fn func(e *fakeEngine)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fn(e)
}

// networkNames and containerNames list what the engine holds.
func (e *fakeEngine) networkNames() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Sorted(maps.Keys(e.networks))
}

func (e *fakeEngine) containerNames() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Sorted(maps.Keys(e.containers))
}

func (e *fakeEngine) reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requests = nil
}

// pause freezes a running container, as docker pause does: its processes,
// and the GPUs they opened, stay.
func (e *fakeEngine) pause(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.containers[name]
	c.State.Status, c.State.Paused = container.StatePaused, true
}

// exit makes a container exit as if its process ended.
func (e *fakeEngine) exit(name string, code int, oomKilled bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.containers[name]
	c.State.Status, c.State.Running = container.StateExited, false
	c.State.ExitCode, c.State.OOMKilled = code, oomKilled
	c.State.FinishedAt = "2026-03-02T11:00:00Z"
}

var versionPrefix = regexp.MustCompile(`^/v[0-9]+\.[0-9]+`)

func (e *fakeEngine) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := versionPrefix.ReplaceAllString(r.URL.Path, "")
	e.mu.Lock()
	defer e.mu.Unlock()
	if path != "/_ping" {
		e.requests = append(e.requests, request{Method: r.Method, Path: path, Query: r.URL.Query(), Body: body})
	}
	w.Header().Set("Api-Version", apiVersion)

	switch {
	case path == "/_ping":
		_, _ = io.WriteString(w, "OK")

	case r.Method == http.MethodGet && strings.HasPrefix(path, "/images/") && strings.HasSuffix(path, "/json"):
		ref := strings.TrimSuffix(strings.TrimPrefix(path, "/images/"), "/json")
		if !e.images[ref] {
			engineError(w, http.StatusNotFound, "No such image: "+ref)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"Id": "sha256:" + digest(ref), "RepoTags": []string{ref}})

	case r.Method == http.MethodPost && path == "/images/create":
		ref := r.URL.Query().Get("fromImage") + ":" + r.URL.Query().Get("tag")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = fmt.Fprintf(w, `{"status":"Pulling from %s"}`+"\n", ref)
		if msg, ok := e.pullErrors[ref]; ok {
			_, _ = fmt.Fprintf(w, `{"errorDetail":{"message":%q},"error":%q}`+"\n", msg, msg)
			return
		}
		_, _ = fmt.Fprintf(w, `{"status":"Status: Downloaded newer image for %s"}`+"\n", ref)
		e.images[ref] = true

	case r.Method == http.MethodPost && path == "/networks/create":
		var req network.CreateRequest
		if !e.decode(w, body, &req) {
			return
		}
		if _, ok := e.networks[req.Name]; ok {
			engineError(w, http.StatusConflict, "network with name "+req.Name+" already exists")
			return
		}
		n := &fakeNetwork{Labels: req.Labels}
		if req.IPAM != nil {
			for _, c := range req.IPAM.Config {
				n.Subnets = append(n.Subnets, c.Subnet)
			}
		}
		// As the engine does: a subnet may not overlap another network's.
		for _, other := range e.networks {
			for _, o := range other.Subnets {
				for _, s := range n.Subnets {
					if s.Overlaps(o) {
						engineError(w, http.StatusForbidden, "invalid pool request: Pool overlaps with other one on this address space")
						return
					}
				}
			}
		}
		e.networks[req.Name] = n
		writeJSON(w, http.StatusCreated, map[string]any{"Id": digest(req.Name), "Warning": ""})

	case r.Method == http.MethodGet && path == "/networks":
		list := []network.Summary{}
		for _, name := range slices.Sorted(maps.Keys(e.networks)) {
			n := e.networks[name]
			var ipam []network.IPAMConfig
			for _, s := range n.Subnets {
				ipam = append(ipam, network.IPAMConfig{Subnet: s})
			}
			list = append(list, network.Summary{Network: network.Network{Name: name, ID: digest(name), Driver: "bridge",
				Labels: n.Labels, IPAM: network.IPAM{Driver: "default", Config: ipam}}})
		}
		writeJSON(w, http.StatusOK, list)

	case r.Method == http.MethodDelete && strings.HasPrefix(path, "/networks/"):
		name := strings.TrimPrefix(path, "/networks/")
		if _, ok := e.networks[name]; !ok {
			engineError(w, http.StatusNotFound, "network "+name+" not found")
			return
		}
		delete(e.networks, name)
		w.WriteHeader(http.StatusNoContent)

	case r.Method == http.MethodPost && path == "/containers/create":
		name := r.URL.Query().Get("name")
		if e.failCreate != "" {
			engineError(w, http.StatusInternalServerError, e.failCreate)
			return
		}
		if _, ok := e.containers[name]; ok {
			engineError(w, http.StatusConflict, "Conflict. The container name \"/"+name+"\" is already in use")
			return
		}
		var req container.CreateRequest
		if !e.decode(w, body, &req) {
			return
		}
		c := &fakeContainer{ID: digest(name), Name: name, Config: *req.Config,
			State: container.State{Status: container.StateCreated, StartedAt: "0001-01-01T00:00:00Z", FinishedAt: "0001-01-01T00:00:00Z"}}
		if req.HostConfig != nil {
			c.Host = *req.HostConfig
		}
		e.containers[name] = c
		writeJSON(w, http.StatusCreated, map[string]any{"Id": c.ID, "Warnings": []string{}})

	case r.Method == http.MethodGet && path == "/containers/json":
		var filters map[string]map[string]bool
		if f := r.URL.Query().Get("filters"); f != "" {
			if !e.decode(w, []byte(f), &filters) {
				return
			}
		}
		// As the engine does: a status filter looks at every container,
		// otherwise only running ones are listed unless all=1.
		statuses, all := filters["status"], r.URL.Query().Get("all") == "1"
		list := []container.Summary{}
		for _, c := range e.containers {
			switch {
			case len(statuses) > 0 && !statuses[string(c.State.Status)]:
				continue
			case len(statuses) == 0 && !all && !c.State.Running:
				continue
			}
			if matchLabels(c.Config.Labels, filters["label"]) {
				list = append(list, container.Summary{ID: c.ID, Names: []string{"/" + c.Name}, Image: c.Config.Image,
					Labels: c.Config.Labels, State: c.State.Status})
			}
		}
		writeJSON(w, http.StatusOK, list)

	case strings.HasPrefix(path, "/containers/"):
		rest := strings.TrimPrefix(path, "/containers/")
		ref, action, _ := strings.Cut(rest, "/")
		c := e.find(ref)
		if c == nil {
			engineError(w, http.StatusNotFound, "No such container: "+ref)
			return
		}
		switch {
		case r.Method == http.MethodGet && action == "json":
			writeJSON(w, http.StatusOK, container.InspectResponse{ID: c.ID, Name: "/" + c.Name, State: &c.State,
				Config: &c.Config, HostConfig: &c.Host})
		case r.Method == http.MethodPost && action == "start":
			c.State.Status, c.State.Running = container.StateRunning, true
			c.State.StartedAt = "2026-03-02T10:00:00.5Z"
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodPost && action == "stop":
			if !c.State.Running {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			c.State.Status, c.State.Running, c.State.ExitCode = container.StateExited, false, 143
			c.State.FinishedAt = "2026-03-02T10:30:00Z"
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodDelete && action == "":
			if c.State.Running && r.URL.Query().Get("force") != "1" {
				engineError(w, http.StatusConflict, "cannot remove a running container")
				return
			}
			delete(e.containers, c.Name)
			w.WriteHeader(http.StatusNoContent)
		default:
			engineError(w, http.StatusNotImplemented, "fake engine: "+r.Method+" "+path)
		}

	default:
		engineError(w, http.StatusNotImplemented, "fake engine: "+r.Method+" "+path)
	}
}

// find looks a container up by name or id, as the engine does.
func (e *fakeEngine) find(ref string) *fakeContainer {
	if c, ok := e.containers[ref]; ok {
		return c
	}
	for _, c := range e.containers {
		if c.ID == ref {
			return c
		}
	}
	return nil
}

// decode reads a request body; a body the real engine would reject fails
// the test (from the server goroutine, so with Errorf, not FailNow).
func (e *fakeEngine) decode(w http.ResponseWriter, body []byte, v any) bool {
	if err := json.Unmarshal(body, v); err != nil {
		e.t.Errorf("fake engine: bad request body %q: %v", body, err)
		engineError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}

func matchLabels(labels map[string]string, want map[string]bool) bool {
	for f := range want {
		k, v, hasValue := strings.Cut(f, "=")
		got, ok := labels[k]
		if !ok || (hasValue && got != v) {
			return false
		}
	}
	return true
}

func engineError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"message": msg})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
