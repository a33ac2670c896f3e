package e2e_test

import (
	"bufio"
	"debug/elf"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// Issue 30: the server's container image (deploy/server/Dockerfile) is
// built by the local Docker engine from a static build of this tree, on
// an empty base (FROM scratch: one layer per COPY, no shell), runs as an
// unprivileged user, and serves against this machine's PostgreSQL and
// Redis: /readyz answers with the database, events and presence all up.
func TestTheServerImageIsBuiltFromScratchAndServes(t *testing.T) {
	t.Parallel()
	docker := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(t.Context(), "docker", args...).CombinedOutput()
		require.NoError(t, err, "docker %s:\n%s", strings.Join(args, " "), out)
		return strings.TrimSpace(string(out))
	}
	ctxDir := t.TempDir()
	// As make static and make image build it: CGO_ENABLED=0, a static
	// binary, the one thing an image FROM scratch can run (this is the
	// test of that build; internal/layering checks its dependency list).
	bin := filepath.Join(ctxDir, "gpunex")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "../../cmd/gpunex")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "CGO_ENABLED=0 go build ./cmd/gpunex:\n%s", out)
	requireStatic(t, bin)
	ca, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	require.NoError(t, err, "the CA bundle the image carries (Debian's ca-certificates)")
	require.NoError(t, os.WriteFile(filepath.Join(ctxDir, "ca-certificates.crt"), ca, 0o644))

	tag := fmt.Sprintf("gpunex-test/server:%d", os.Getpid())
	docker("build", "-q", "-f", "../../deploy/server/Dockerfile", "-t", tag, ctxDir)
	t.Cleanup(func() { _ = exec.Command("docker", "image", "rm", "-f", tag).Run() })
	var inspect []struct {
		Config struct {
			User       string
			Entrypoint []string
		}
		RootFS struct{ Layers []string }
	}
	require.NoError(t, json.Unmarshal([]byte(docker("image", "inspect", tag)), &inspect))
	require.Len(t, inspect, 1)
	require.Equal(t, "65534:65534", inspect[0].Config.User, "not root")
	require.Equal(t, []string{"/gpunex"}, inspect[0].Config.Entrypoint)
	require.Len(t, inspect[0].RootFS.Layers, 2, "scratch plus the CA bundle and the binary: nothing else")

	port := redistest.FreePort(t)
	rs := redistest.Start(t, 0)
	name := fmt.Sprintf("gpunex-test-server-%d", os.Getpid())
	docker("run", "-d", "--name", name, "--network", "host", "--tmpfs", "/data:uid=65534",
		"-e", "GPUNEX_ADDR=127.0.0.1:"+fmt.Sprint(port),
		"-e", "GPUNEX_DATABASE_URL="+storetest.PostgresURL(t),
		"-e", "GPUNEX_REDIS_URL="+rs.URL(),
		tag)
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", name).Run() })
	ready := func() bool {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/readyz", port), nil)
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer res.Body.Close()
		return res.StatusCode == http.StatusOK
	}
	await.True(t, ready, "the container serves /readyz; its log:\n%s", func() string {
		out, _ := exec.Command("docker", "logs", name).CombinedOutput()
		return string(out)
	}())
}

// requireStatic fails unless the ELF binary at path asks for no dynamic
// loader and no shared library: it runs on any Linux host and in an empty
// image.
func requireStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "the binary asks for a dynamic loader")
		require.NotEqual(t, elf.PT_DYNAMIC, p.Type, "the binary has a dynamic section")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	require.Empty(t, libs, "the binary needs shared libraries")
}

// Issue 30: the deployment files name only settings the server has: every
// GPUNEX_* variable in deploy/compose.yaml, deploy/server.env.example and
// deploy/gpunex.service is the environment variable of a `gpunex serve`
// flag (as --help lists them), and the compose file is YAML that runs two
// replicas of the server image behind the proxy, on PostgreSQL and Redis.
func TestTheDeploymentFilesNameOnlyRealSettings(t *testing.T) {
	t.Parallel()
	server, _ := binaries(t)
	help, err := exec.CommandContext(t.Context(), server, "serve", "--help").CombinedOutput()
	require.NoError(t, err, "%s", help)
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`\(env (GPUNEX_[A-Z0-9_]+)\)`).FindAllStringSubmatch(string(help), -1) {
		known[m[1]] = true
	}
	require.Greater(t, len(known), 30, "serve --help lists its flags' variables")

	named := regexp.MustCompile(`\bGPUNEX_[A-Z0-9_]+`)
	for _, f := range []string{"compose.yaml", "server.env.example", "gpunex.service", "server/Dockerfile"} {
		b, err := os.ReadFile(filepath.Join("../../deploy", f))
		require.NoError(t, err)
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for line := 1; sc.Scan(); line++ {
			for _, v := range named.FindAllString(sc.Text(), -1) {
				require.True(t, known[v], "deploy/%s:%d names %s, which no flag of gpunex serve reads", f, line, v)
			}
		}
	}

	b, err := os.ReadFile("../../deploy/compose.yaml")
	require.NoError(t, err)
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(b, &compose))
	var replicas []string
	for name, s := range compose.Services {
		if s.Image == "gpunex/server:dev" {
			replicas = append(replicas, name)
			require.Contains(t, s.Environment["GPUNEX_DATABASE_URL"], "@postgres:5432/", name)
			require.Contains(t, s.Environment["GPUNEX_REDIS_URL"], "redis://redis:6379", name)
		}
	}
	slices.Sort(replicas)
	require.Equal(t, []string{"gpunex-1", "gpunex-2"}, replicas)
	for _, dep := range []string{"postgres", "redis", "proxy"} {
		require.Contains(t, compose.Services, dep)
	}
	caddy, err := os.ReadFile("../../deploy/Caddyfile")
	require.NoError(t, err)
	for _, r := range replicas {
		require.Contains(t, string(caddy), r+":8080", "the proxy sends to %s", r)
	}
}
