package docker_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/job/docker"
	"github.com/gpunex/gpunex/internal/clock"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

const (
	image    = "nvcr.io/nvidia/pytorch:24.05-py3"
	gpuOne   = "GPU-6f2a1c7e-0d4b-4b8e-9a51-2c3d4e5f6a7b"
	gpuTwo   = "GPU-0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
	gpuThree = "GPU-7d8e9f00-1122-4334-8556-778899aabbcc"
	gpuFour  = "GPU-3c4d5e6f-7081-4293-a4b5-c6d7e8f90a1b"
)

var testNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// bundle is a runtime over a fresh fake engine.
type bundle struct {
	engine  *fakeEngine
	runtime *docker.Runtime
	clock   *clock.Manual
}

// subnet is the one subnet of the named network on the engine.
func (b bundle) subnet(t *testing.T, name string) string {
	t.Helper()
	var got []netip.Prefix
	b.engine.with(func(e *fakeEngine) {
		if n, ok := e.networks[name]; ok {
			got = n.Subnets
		}
	})
	require.Len(t, got, 1, "network %s", name)
	return got[0].String()
}

// startAtOnce starts every spec concurrently and returns their errors.
func (b bundle) startAtOnce(specs ...job.Spec) []error {
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() { _, errs[i] = b.runtime.Start(context.Background(), spec) })
	}
	wg.Wait()
	return errs
}

// started counts the starts that succeeded; every other must have failed
// with refusal.
func started(t *testing.T, errs []error, refusal error) int {
	t.Helper()
	n := 0
	for _, err := range errs {
		if err == nil {
			n++
		} else {
			require.ErrorIs(t, err, refusal)
		}
	}
	return n
}

func setup(t *testing.T) bundle {
	t.Helper()
	e := newFakeEngine(t)
	clk := clock.NewManual(testNow)
	return bundle{engine: e, runtime: docker.New(e.client(t), docker.Options{Clock: clk}), clock: clk}
}

// trainingSpec is a typical rental: two GPUs, a PyTorch image.
func trainingSpec(id string) job.Spec {
	return job.Spec{
		ID:          id,
		Image:       image,
		Command:     []string{"python", "train.py", "--epochs", "3"},
		Env:         []string{"HF_HOME=/tmp/hf"},
		GPUUUIDs:    []string{gpuOne, gpuTwo},
		MemoryBytes: 64 << 30,
		PidsLimit:   4096,
		ShmBytes:    8 << 30,
	}
}

func TestDockerStartSendsExactlyTheIsolatedContainerConfig(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	j, err := b.runtime.Start(ctx, trainingSpec("rental-42"))
	require.NoError(t, err)
	require.Equal(t, "rental-42", j.ID)
	require.Equal(t, job.StateRunning, j.State)
	require.Equal(t, []string{gpuOne, gpuTwo}, j.GPUUUIDs)
	require.Equal(t, time.Date(2026, 3, 2, 10, 0, 0, 5e8, time.UTC), j.StartedAt)
	require.Nil(t, j.ExitCode)

	require.Equal(t, []string{
		"GET /containers/gpunex-job-rental-42/json", // not started already
		"GET /containers/json",                      // its GPUs held by no other job
		"GET /images/" + image + "/json",            // missing here…
		"POST /images/create",                       // …so pulled
		"GET /networks",                             // the subnets taken
		"POST /networks/create",
		"POST /containers/create",
		"POST /containers/" + j.RuntimeID + "/start",
		"GET /containers/gpunex-job-rental-42/json",
	}, b.engine.calls())

	create := b.engine.last("POST", "/containers/create")
	require.Equal(t, "gpunex-job-rental-42", create.Query.Get("name"))

	// The promises of the provider guide, field by field.
	var body struct {
		HostConfig       map[string]json.RawMessage
		Labels           map[string]string
		NetworkingConfig map[string]map[string]json.RawMessage
	}
	require.NoError(t, json.Unmarshal(create.Body, &body))
	host := body.HostConfig
	require.JSONEq(t, `[{"Driver":"nvidia","Count":0,"DeviceIDs":["`+gpuOne+`","`+gpuTwo+`"],"Capabilities":[["gpu"]],"Options":null}]`,
		string(host["DeviceRequests"]), "only the assigned GPUs, by UUID")
	require.JSONEq(t, `null`, string(host["Binds"]), "no host bind mounts")
	require.NotContains(t, host, "Mounts", "no host mounts")
	require.JSONEq(t, `null`, string(host["Devices"]), "no host devices besides the GPUs")
	require.JSONEq(t, `null`, string(host["VolumesFrom"]))
	require.JSONEq(t, `false`, string(host["Privileged"]), "not privileged")
	require.JSONEq(t, `["ALL"]`, string(host["CapDrop"]), "every capability dropped")
	require.JSONEq(t, `null`, string(host["CapAdd"]), "none added back")
	require.JSONEq(t, `["no-new-privileges"]`, string(host["SecurityOpt"]))
	require.JSONEq(t, `4096`, string(host["PidsLimit"]))
	require.JSONEq(t, `68719476736`, string(host["Memory"]))
	require.JSONEq(t, `68719476736`, string(host["MemorySwap"]), "no swap beyond the memory limit")
	require.JSONEq(t, `8589934592`, string(host["ShmSize"]))
	require.JSONEq(t, `"gpunex-job-rental-42"`, string(host["NetworkMode"]), "its own network")
	for _, ns := range []string{"PidMode", "IpcMode", "UTSMode", "UsernsMode", "CgroupnsMode"} {
		require.JSONEq(t, `""`, string(host[ns]), "%s: the engine's private default, never the host's", ns)
	}
	require.JSONEq(t, `null`, string(host["PortBindings"]), "no ports published on the host")
	require.JSONEq(t, `false`, string(host["PublishAllPorts"]))
	require.JSONEq(t, `{"Name":"no","MaximumRetryCount":0}`, string(host["RestartPolicy"]))
	require.Equal(t, map[string]string{
		job.LabelManaged: "true",
		job.LabelJobID:   "rental-42",
		job.LabelGPUs:    gpuOne + "," + gpuTwo,
	}, body.Labels)
	require.Contains(t, body.NetworkingConfig["EndpointsConfig"], "gpunex-job-rental-42")

	// And the whole request, byte for byte as JSON: any field the runtime
	// starts sending shows up here for review.
	golden(t, "create-container.json", create.Body)

	var net struct {
		Name, Driver string
		Internal     bool
		EnableIPv6   *bool
		IPAM         struct{ Config []map[string]string }
		Options      map[string]string
		Labels       map[string]string
	}
	require.NoError(t, json.Unmarshal(b.engine.last("POST", "/networks/create").Body, &net))
	require.Equal(t, "gpunex-job-rental-42", net.Name)
	require.Equal(t, "bridge", net.Driver, "a user-defined bridge of its own")
	require.False(t, net.Internal, "jobs reach the internet")
	require.Equal(t, []map[string]string{{"Subnet": "10.231.0.0/24"}}, net.IPAM.Config,
		"the first /24 of the pool the host firewall keeps off the LAN")
	require.Equal(t, map[string]string{"com.docker.network.bridge.enable_icc": "false"}, net.Options,
		"no container-to-container traffic on the bridge")
	require.NotNil(t, net.EnableIPv6)
	require.False(t, *net.EnableIPv6, "no IPv6: the host firewall covers IPv4")
	require.Equal(t, body.Labels, net.Labels, "the network is labelled like the container")
	golden(t, "create-network.json", b.engine.last("POST", "/networks/create").Body)

	pull := b.engine.last("POST", "/images/create")
	require.Equal(t, "nvcr.io/nvidia/pytorch", pull.Query.Get("fromImage"))
	require.Equal(t, "24.05-py3", pull.Query.Get("tag"))
}

func TestDockerStartPullsOnlyAMissingImage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.engine.with(func(e *fakeEngine) { e.images[image] = true })

	_, err := b.runtime.Start(context.Background(), trainingSpec("rental-1"))
	require.NoError(t, err)
	require.NotContains(t, b.engine.calls(), "POST /images/create")
}

func TestDockerStartWritesTheDeadlineOfATimedJob(t *testing.T) {
	t.Parallel()
	b := setup(t)
	spec := trainingSpec("rental-1")
	spec.Timeout = 90 * time.Minute

	j, err := b.runtime.Start(context.Background(), spec)
	require.NoError(t, err)
	require.Equal(t, testNow.Add(90*time.Minute), j.Deadline)
	var body struct{ Labels map[string]string }
	require.NoError(t, json.Unmarshal(b.engine.last("POST", "/containers/create").Body, &body))
	require.Equal(t, "2026-03-02T11:30:00Z", body.Labels[job.LabelDeadline])
}

func TestDockerStartLeavesNothingWhenThePullFails(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.engine.with(func(e *fakeEngine) { e.pullErrors[image] = "manifest for nvcr.io/nvidia/pytorch:24.05-py3 not found" })

	_, err := b.runtime.Start(context.Background(), trainingSpec("rental-1"))
	require.ErrorContains(t, err, "docker: pull "+image+": manifest for")
	require.ErrorIs(t, err, job.ErrImage, "reported as the customer's image")
	require.Empty(t, b.engine.networkNames())
	require.Empty(t, b.engine.containerNames())
}

func TestDockerStartRemovesTheNetworkWhenCreateFails(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.engine.with(func(e *fakeEngine) {
		e.failCreate = `could not select device driver "nvidia" with capabilities: [[gpu]]`
	})

	_, err := b.runtime.Start(context.Background(), trainingSpec("rental-1"))
	require.ErrorContains(t, err, `could not select device driver "nvidia"`)
	require.Empty(t, b.engine.networkNames(), "the job's network is removed again")
	require.Empty(t, b.engine.containerNames())
	require.Equal(t, "DELETE /networks/gpunex-job-rental-1", b.engine.calls()[len(b.engine.calls())-1])
}

func TestDockerStartReplacesANetworkLeftByACrash(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.engine.with(func(e *fakeEngine) {
		e.networks["gpunex-job-rental-1"] = &fakeNetwork{
			Labels:  map[string]string{job.LabelManaged: "true"},
			Subnets: []netip.Prefix{netip.MustParsePrefix("10.231.0.0/24")},
		}
	})

	_, err := b.runtime.Start(context.Background(), trainingSpec("rental-1"))
	require.NoError(t, err)
	require.Subset(t, b.engine.calls(), []string{"POST /networks/create", "DELETE /networks/gpunex-job-rental-1"})
	b.engine.with(func(e *fakeEngine) {
		require.Equal(t, "rental-1", e.networks["gpunex-job-rental-1"].Labels[job.LabelJobID], "the new network is this job's")
	})
	require.Equal(t, "10.231.1.0/24", b.subnet(t, "gpunex-job-rental-1"),
		"the left-over network still held the first subnet when the free one was chosen")
}

func TestDockerStartRejectsABadSpecBeforeCallingTheEngine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		change func(*job.Spec)
		field  string
	}{
		{"no image", func(s *job.Spec) { s.Image = "" }, "image"},
		{"id with a slash", func(s *job.Spec) { s.ID = "../etc" }, "id"},
		{"no GPU", func(s *job.Spec) { s.GPUUUIDs = nil }, "gpuUuids"},
		{"the same GPU twice", func(s *job.Spec) { s.GPUUUIDs = []string{gpuOne, gpuOne} }, "gpuUuids"},
		{"no memory limit", func(s *job.Spec) { s.MemoryBytes = 0 }, "memoryBytes"},
		{"no pids limit", func(s *job.Spec) { s.PidsLimit = 0 }, "pidsLimit"},
		{"bad env", func(s *job.Spec) { s.Env = []string{"NOVALUE"} }, "env"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			spec := trainingSpec("rental-1")
			tc.change(&spec)
			_, err := b.runtime.Start(context.Background(), spec)
			require.ErrorIs(t, err, job.ErrInvalidSpec)
			require.ErrorContains(t, err, tc.field+":")
			require.Empty(t, b.engine.calls(), "a bad spec changes nothing")
		})
	}
}

func TestDockerStartRefusesAJobThatAlreadyExists(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.runtime.Start(ctx, trainingSpec("rental-1"))
	require.NoError(t, err)

	_, err = b.runtime.Start(ctx, trainingSpec("rental-1"))
	require.ErrorIs(t, err, job.ErrExists)
	require.Len(t, b.engine.containerNames(), 1)
}

func TestDockerConcurrentStartsOfOneJobStartItOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	errs := b.startAtOnce(trainingSpec("rental-1"), trainingSpec("rental-1"), trainingSpec("rental-1"), trainingSpec("rental-1"))
	require.Equal(t, 1, started(t, errs, job.ErrExists))
	require.Equal(t, []string{"gpunex-job-rental-1"}, b.engine.containerNames())
	require.Equal(t, []string{"gpunex-job-rental-1"}, b.engine.networkNames())
}

func TestDockerStartRefusesGPUsHeldByAnotherRunningJob(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.runtime.Start(ctx, trainingSpec("rental-1")) // gpuOne and gpuTwo
	require.NoError(t, err)
	third := trainingSpec("rental-3")
	third.GPUUUIDs = []string{gpuThree}
	_, err = b.runtime.Start(ctx, third)
	require.NoError(t, err)

	// The agent restarts: all it knows of the running jobs is in the
	// engine, under their labels.
	restarted := docker.New(b.engine.client(t), docker.Options{})
	b.engine.reset()
	spec := trainingSpec("rental-2")
	spec.GPUUUIDs = []string{gpuFour, gpuTwo, gpuThree}
	_, err = restarted.Start(ctx, spec)
	require.ErrorIs(t, err, job.ErrGPUInUse)
	require.EqualError(t, err, "docker: start rental-2: "+
		gpuTwo+" is held by job rental-1, "+gpuThree+" is held by job rental-3: job: GPU already in use",
		"every held GPU named with the job holding it; the free one is not named")

	require.Equal(t, []string{
		"GET /containers/gpunex-job-rental-2/json",
		"GET /containers/json",
	}, b.engine.calls(), "refused before any pull, network or container")
	require.Equal(t, []string{"gpunex-job-rental-1", "gpunex-job-rental-3"}, b.engine.containerNames())
	require.Equal(t, []string{"gpunex-job-rental-1", "gpunex-job-rental-3"}, b.engine.networkNames())
	require.JSONEq(t, `{"label":{"io.gpunex.managed=true":true},"status":{"running":true,"paused":true,"restarting":true}}`,
		b.engine.last("GET", "/containers/json").Query.Get("filters"), "our containers whose processes hold GPUs")

	_, err = restarted.Inspect(ctx, "rental-2")
	require.ErrorIs(t, err, job.ErrNotFound)
}

func TestDockerStartCountsAGPUHeldWhileTheJobsProcessesExist(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		arrange func(e *fakeEngine)
		held    bool
	}{
		{"running", func(*fakeEngine) {}, true},
		{"paused: its processes keep the GPU's memory", func(e *fakeEngine) { e.pause("gpunex-job-rental-1") }, true},
		{"exited", func(e *fakeEngine) { e.exit("gpunex-job-rental-1", 0, false) }, false},
		{"OOM-killed", func(e *fakeEngine) { e.exit("gpunex-job-rental-1", 137, true) }, false},
		{"created but never started (the agent crashed between create and start)", func(e *fakeEngine) {
			e.with(func(e *fakeEngine) {
				e.containers["gpunex-job-rental-1"].State = container.State{Status: container.StateCreated}
			})
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			_, err := b.runtime.Start(ctx, trainingSpec("rental-1"))
			require.NoError(t, err)
			tc.arrange(b.engine)
			b.engine.reset()

			spec := trainingSpec("rental-2")
			spec.GPUUUIDs = []string{gpuTwo}
			j, err := b.runtime.Start(ctx, spec)
			if tc.held {
				require.ErrorIs(t, err, job.ErrGPUInUse)
				require.ErrorContains(t, err, gpuTwo+" is held by job rental-1")
				require.NotContains(t, b.engine.calls(), "POST /containers/create")
				require.Equal(t, []string{"gpunex-job-rental-1"}, b.engine.containerNames())
				return
			}
			require.NoError(t, err)
			require.Equal(t, job.StateRunning, j.State)
		})
	}
}

func TestDockerStartOnFreeGPUsNextToARunningJobSendsTheSameConfig(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	other := trainingSpec("rental-1")
	other.GPUUUIDs = []string{gpuThree, gpuFour}
	_, err := b.runtime.Start(ctx, other)
	require.NoError(t, err)

	j, err := b.runtime.Start(ctx, trainingSpec("rental-42")) // gpuOne and gpuTwo: free
	require.NoError(t, err)
	require.Equal(t, job.StateRunning, j.State)
	golden(t, "create-container.json", b.engine.last("POST", "/containers/create").Body)
	// The same network but for its subnet: the first one is rental-1's.
	body := string(b.engine.last("POST", "/networks/create").Body)
	require.Contains(t, body, `"Subnet":"10.231.1.0/24"`)
	golden(t, "create-network.json", []byte(strings.Replace(body, `"Subnet":"10.231.1.0/24"`, `"Subnet":"10.231.0.0/24"`, 1)))
}

func TestDockerConcurrentStartsOfJobsOnOneGPUStartOne(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var specs []job.Spec
	for i := range 4 {
		spec := trainingSpec("rental-" + strconv.Itoa(i))
		spec.GPUUUIDs = []string{gpuOne}
		specs = append(specs, spec)
	}
	require.Equal(t, 1, started(t, b.startAtOnce(specs...), job.ErrGPUInUse))
	require.Len(t, b.engine.containerNames(), 1, "the refused jobs created no container")
	require.Len(t, b.engine.networkNames(), 1, "nor a network")
}

func TestDockerStopStopsAndRemovesContainerAndNetwork(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	j, err := b.runtime.Start(ctx, trainingSpec("rental-7"))
	require.NoError(t, err)
	b.engine.reset()

	require.NoError(t, b.runtime.Stop(ctx, "rental-7"))
	require.Equal(t, []string{
		"GET /containers/gpunex-job-rental-7/json",
		"POST /containers/" + j.RuntimeID + "/stop",
		"DELETE /containers/" + j.RuntimeID,
		"DELETE /networks/gpunex-job-rental-7",
	}, b.engine.calls())
	require.Equal(t, "10", b.engine.last("POST", "/containers/"+j.RuntimeID+"/stop").Query.Get("t"), "SIGKILL after the grace period")
	require.Equal(t, "1", b.engine.last("DELETE", "/containers/"+j.RuntimeID).Query.Get("force"))
	require.Empty(t, b.engine.containerNames())
	require.Empty(t, b.engine.networkNames())

	_, err = b.runtime.Inspect(ctx, "rental-7")
	require.ErrorIs(t, err, job.ErrNotFound)
	require.NoError(t, b.runtime.Stop(ctx, "rental-7"), "a repeated stop command is harmless")
}

func TestDockerStopRemovesAnExitedJobWithoutStoppingIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	j, err := b.runtime.Start(ctx, trainingSpec("rental-8"))
	require.NoError(t, err)
	b.engine.exit("gpunex-job-rental-8", 0, false)
	b.engine.reset()

	require.NoError(t, b.runtime.Stop(ctx, "rental-8"))
	require.NotContains(t, b.engine.calls(), "POST /containers/"+j.RuntimeID+"/stop")
	require.Empty(t, b.engine.containerNames())
}

func TestDockerInspectReportsExitCodeAndOOMKill(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.runtime.Start(ctx, trainingSpec("rental-9"))
	require.NoError(t, err)
	b.engine.exit("gpunex-job-rental-9", 137, true)

	j, err := b.runtime.Inspect(ctx, "rental-9")
	require.NoError(t, err)
	require.Equal(t, job.StateExited, j.State)
	require.Equal(t, 137, *j.ExitCode)
	require.Equal(t, "oom-killed", j.Reason)
	require.Equal(t, time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC), j.FinishedAt)
}

func TestDockerIgnoresContainersGPUnexDidNotCreate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.engine.with(func(e *fakeEngine) {
		e.containers["gpunex-job-rental-1"] = &fakeContainer{ID: "foreign", Name: "gpunex-job-rental-1"}
	})

	_, err := b.runtime.Inspect(context.Background(), "rental-1")
	require.ErrorIs(t, err, job.ErrNotFound)
	jobs, err := b.runtime.List(context.Background())
	require.NoError(t, err)
	require.Empty(t, jobs)
}

func TestDockerListFindsJobsAfterAnAgentRestart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, err := b.runtime.Start(ctx, trainingSpec("rental-1"))
	require.NoError(t, err)
	spec := trainingSpec("rental-2")
	spec.GPUUUIDs = []string{gpuThree}
	spec.Timeout = time.Hour
	second, err := b.runtime.Start(ctx, spec)
	require.NoError(t, err)
	b.engine.exit("gpunex-job-rental-2", 0, false)
	// A container the provider runs for themselves.
	b.engine.with(func(e *fakeEngine) { e.containers["postgres"] = &fakeContainer{ID: "their-own", Name: "postgres"} })

	// The agent restarts: a new client, a new runtime, no memory but the
	// engine's labels.
	restarted := docker.New(b.engine.client(t), docker.Options{})
	b.engine.reset()
	jobs, err := restarted.List(ctx)
	require.NoError(t, err)
	require.ElementsMatch(t, []job.Job{
		{ID: "rental-1", State: job.StateRunning, GPUUUIDs: []string{gpuOne, gpuTwo}, RuntimeID: first.RuntimeID},
		{ID: "rental-2", State: job.StateExited, GPUUUIDs: spec.GPUUUIDs, RuntimeID: second.RuntimeID,
			Deadline: testNow.Add(time.Hour)},
	}, jobs)

	list := b.engine.last("GET", "/containers/json")
	require.Equal(t, "1", list.Query.Get("all"), "exited jobs too")
	require.JSONEq(t, `{"label":{"io.gpunex.managed=true":true}}`, list.Query.Get("filters"))

	require.NoError(t, restarted.Stop(ctx, "rental-1"), "the restarted agent can stop what it found")
	require.NotContains(t, b.engine.containerNames(), "gpunex-job-rental-1")
}

func TestDockerJobNetworkSubnetPoolIsTheDocumentedOne(t *testing.T) {
	t.Parallel()
	pool := netip.MustParsePrefix(docker.SubnetPool)
	require.Equal(t, "10.231.0.0/16", pool.String())
	require.True(t, pool.Addr().Is4())
	require.True(t, netip.MustParsePrefix("10.0.0.0/8").Overlaps(pool), "inside 10/8: the firewall lets nothing of it reach 10/8 but its DNS")
	require.Equal(t, 24, docker.SubnetBits)
}

func TestDockerStartPicksTheFirstSubnetOfThePoolNoNetworkHolds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		taken map[string][]string // network name -> its subnets
		want  string
	}{
		{"an empty engine", nil, "10.231.0.0/24"},
		{"the first two held by jobs", map[string][]string{
			"gpunex-job-a": {"10.231.0.0/24"}, "gpunex-job-b": {"10.231.1.0/24"},
		}, "10.231.2.0/24"},
		{"a gap left by a stopped job", map[string][]string{
			"gpunex-job-a": {"10.231.0.0/24"}, "gpunex-job-c": {"10.231.2.0/24"},
		}, "10.231.1.0/24"},
		{"the provider's own network across two slots", map[string][]string{
			"their-lab": {"10.231.0.0/23"},
		}, "10.231.2.0/24"},
		{"networks outside the pool", map[string][]string{
			"bridge": {"172.17.0.0/16"}, "their-lan": {"10.0.0.0/16"}, "none": nil,
		}, "10.231.0.0/24"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.engine.with(func(e *fakeEngine) {
				e.images[image] = true
				for name, subnets := range tc.taken {
					n := &fakeNetwork{}
					for _, s := range subnets {
						n.Subnets = append(n.Subnets, netip.MustParsePrefix(s))
					}
					e.networks[name] = n
				}
			})

			_, err := b.runtime.Start(context.Background(), trainingSpec("rental-1"))
			require.NoError(t, err)
			require.Equal(t, tc.want, b.subnet(t, "gpunex-job-rental-1"))
		})
	}
}

func TestDockerStartFailsClearlyAndCreatesNothingWhenThePoolIsExhausted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.engine.with(func(e *fakeEngine) {
		e.images[image] = true
		for i := range 256 {
			e.networks["gpunex-job-old-"+strconv.Itoa(i)] = &fakeNetwork{
				Labels:  map[string]string{job.LabelManaged: "true"},
				Subnets: []netip.Prefix{netip.MustParsePrefix("10.231." + strconv.Itoa(i) + ".0/24")},
			}
		}
	})
	before := b.engine.networkNames()

	_, err := b.runtime.Start(context.Background(), trainingSpec("rental-1"))
	require.ErrorIs(t, err, docker.ErrSubnetPoolExhausted)
	require.EqualError(t, err, "docker: create network gpunex-job-rental-1: all 256 /24 subnets of 10.231.0.0/16 are held by networks; "+
		"stop a job or remove networks left behind (docker network ls --filter label=io.gpunex.managed=true): docker: job subnet pool exhausted")
	require.NotContains(t, b.engine.calls(), "POST /networks/create")
	require.NotContains(t, b.engine.calls(), "POST /containers/create")
	require.Equal(t, before, b.engine.networkNames(), "no network created or removed")
	require.Empty(t, b.engine.containerNames())
}

func TestDockerStopFreesTheJobsSubnet(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.runtime.Start(ctx, trainingSpec("rental-1"))
	require.NoError(t, err)
	require.Equal(t, "10.231.0.0/24", b.subnet(t, "gpunex-job-rental-1"))
	require.NoError(t, b.runtime.Stop(ctx, "rental-1"))

	_, err = b.runtime.Start(ctx, trainingSpec("rental-2"))
	require.NoError(t, err)
	require.Equal(t, "10.231.0.0/24", b.subnet(t, "gpunex-job-rental-2"))
}

func TestDockerConcurrentStartsGetDistinctSubnets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.engine.with(func(e *fakeEngine) { e.images[image] = true })
	const jobs = 16
	var specs []job.Spec
	for i := range jobs {
		spec := trainingSpec("rental-" + strconv.Itoa(i))
		spec.GPUUUIDs = []string{"GPU-00000000-0000-4000-8000-" + fmt.Sprintf("%012d", i)}
		specs = append(specs, spec)
	}
	for _, err := range b.startAtOnce(specs...) {
		// The fake engine, like the real one, refuses a subnet that
		// overlaps another network's: two Starts picking one would fail.
		require.NoError(t, err)
	}
	seen := map[string]bool{}
	for _, name := range b.engine.networkNames() {
		seen[b.subnet(t, name)] = true
	}
	require.Len(t, seen, jobs)
	for i := range jobs {
		require.True(t, seen["10.231."+strconv.Itoa(i)+".0/24"], "the first %d subnets, each once", jobs)
	}
}

// Several agents (or an agent and the provider's own scripts) share one
// engine: each lists the networks and takes the first free subnet, so
// when they start at once all but one are refused with "Pool overlaps".
// Every job must still get a network of its own, however many start at
// once, not fail after a few tries.
func TestDockerStartsOfManyAgentsOnOneEngineAllGetASubnet(t *testing.T) {
	t.Parallel()
	e := newFakeEngine(t)
	e.with(func(e *fakeEngine) { e.images[image] = true })
	const agents = 24
	errs := make([]error, agents)
	var wg sync.WaitGroup
	for i := range agents {
		rt := docker.New(e.client(t), docker.Options{Clock: clock.NewManual(testNow)})
		spec := trainingSpec("rental-" + strconv.Itoa(i))
		spec.GPUUUIDs = []string{"GPU-00000000-0000-4000-8000-" + fmt.Sprintf("%012d", i)}
		wg.Go(func() { _, errs[i] = rt.Start(context.Background(), spec) })
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "agent %d", i)
	}
	b := bundle{engine: e}
	seen := map[string]bool{}
	for _, name := range e.networkNames() {
		seen[b.subnet(t, name)] = true
	}
	require.Len(t, seen, agents, "a subnet of its own for each job")
	require.Len(t, e.containerNames(), agents)
}

// golden compares got with testdata/name as JSON; -update rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		var v any
		require.NoError(t, json.Unmarshal(got, &v))
		pretty, err := json.MarshalIndent(v, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, append(pretty, '\n'), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./agent/job/docker -run %s -update to create %s", t.Name(), path)
	require.JSONEq(t, string(want), string(got))
}
