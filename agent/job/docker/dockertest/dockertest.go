// Package dockertest gives tests the real Docker engine make test starts
// (scripts/test-env.sh writes its address as GPUNEX_TEST_DOCKER_HOST; else
// DOCKER_HOST or the default socket) and the image they run: no registry
// is reachable from the test machines, so Image is imported from a
// tarball of Debian's static busybox.
package dockertest

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"
)

// Image is the busybox image the tests run.
const Image = "gpunex-test/busybox:1"

// busyboxPath is where Debian's busybox-static puts the binary.
const busyboxPath = "/bin/busybox"

// applets are the commands Image has, as links to busybox.
var applets = []string{"sh", "echo", "sleep", "cat", "grep", "nc", "tail", "head", "id", "ls", "true", "false", "printf", "ip", "awk", "basename", "seq"}

// lockFile, in the temp directory, is what Alone and Beside lock.
const lockFile = "gpunex-docker-job-networks.lock"

// Alone holds the engine's job networks for t alone until it ends: no
// other test, in this binary or another (make test runs packages side by
// side), creates or removes a job network meanwhile. The tests that check
// Docker's inter-network isolation take it: twice in a CI run a job
// reached another job's network while other tests created and removed
// theirs on the same engine (Docker 20.10 on iptables-nft), which no
// isolation check should depend on.
func Alone(t testing.TB) { hold(t, syscall.LOCK_EX) }

// Beside lets t start jobs beside other tests, waiting while one holds the
// engine's job networks Alone. Every test that starts jobs on the engine
// takes it (or Alone) before its first job.
func Beside(t testing.TB) { hold(t, syscall.LOCK_SH) }

// hold takes the lock file how (an flock, across processes) until t ends.
func hold(t testing.TB, how int) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), lockFile), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("dockertest: the job networks' lock: %v", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR { //nolint:errorlint // a raw syscall's errno
			break
		}
	}
	if err != nil {
		_ = f.Close()
		t.Fatalf("dockertest: the job networks' lock: %v", err)
	}
	t.Cleanup(func() { _ = f.Close() }) // closing releases the flock
}

// Host is the engine's address the tests use.
func Host() string {
	if h := os.Getenv("GPUNEX_TEST_DOCKER_HOST"); h != "" {
		return h
	}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	return client.DefaultDockerHost
}

// Engine connects to Host and checks that the engine answers; the error
// says where it looked and how make test starts one, for the caller's
// t.Skip.
func Engine(ctx context.Context) (*client.Client, error) {
	cli, err := client.New(client.FromEnv, client.WithHost(Host()))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("no Docker engine answers at %s (%w): make test starts one (scripts/test-env.sh); or set GPUNEX_TEST_DOCKER_HOST", Host(), err)
	}
	return cli, nil
}

// ImportImage imports Image into the engine unless it has it already.
func ImportImage(ctx context.Context, cli *client.Client) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := cli.ImageInspect(ctx, Image); err == nil {
		return nil
	}
	bin, err := os.ReadFile(busyboxPath)
	if err != nil {
		return fmt.Errorf("the test image is built from Debian's static busybox (apt-get install busybox-static; scripts/test-env.sh installs it): %w", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range []string{"bin/", "tmp/", "etc/", "proc/", "sys/", "dev/"} {
		mode := int64(0o755)
		if d == "tmp/" {
			mode = 0o1777
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: mode}); err != nil {
			return err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: int64(len(bin))}); err != nil {
		return err
	}
	if _, err := tw.Write(bin); err != nil {
		return err
	}
	for _, a := range applets {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox"}); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	res, err := cli.ImageImport(ctx, client.ImageImportSource{Source: &buf, SourceName: "-"}, Image, client.ImageImportOptions{})
	if err != nil {
		return fmt.Errorf("importing %s: %w", Image, err)
	}
	defer res.Close()
	_, err = io.Copy(io.Discard, res)
	return err
}
