// Package docker is the job.Runtime that runs customer jobs as containers
// through the Docker Engine API (the official moby client).
//
// Each job gets a container and a user-defined bridge network of its own,
// both named ContainerName(id). The network's subnet is a /24 of
// SubnetPool, the range the host firewall written by the installer keeps
// off the provider's LAN, the host and metadata endpoints; its bridge
// forbids container-to-container traffic (enable_icc=false) and it has no
// IPv6, which that firewall does not cover. The container sees only the GPUs assigned
// to the job (a device request for their UUIDs through the NVIDIA
// Container Toolkit), has no host mounts, is not privileged, drops every
// capability, cannot gain privileges (no-new-privileges) and runs under
// the spec's pids and memory limits, without swap beyond the memory limit.
// Labels (job.LabelManaged, job.LabelJobID, …) on the container and the
// network are how a restarted agent finds its jobs again, and how Start
// knows which GPUs the running jobs hold: a job wanting one of them is
// refused (job.ErrGPUInUse) before anything is pulled or created.
package docker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/internal/clock"
)

// Engine is the part of the Docker Engine API client the runtime uses.
// main passes a *client.Client (client.New(client.FromEnv)); the interface
// keeps the runtime's needs visible and small.
type Engine interface {
	ImageInspect(ctx context.Context, image string, opts ...client.ImageInspectOption) (client.ImageInspectResult, error)
	ImagePull(ctx context.Context, ref string, opts client.ImagePullOptions) (client.ImagePullResponse, error)
	NetworkList(ctx context.Context, opts client.NetworkListOptions) (client.NetworkListResult, error)
	NetworkCreate(ctx context.Context, name string, opts client.NetworkCreateOptions) (client.NetworkCreateResult, error)
	NetworkRemove(ctx context.Context, network string, opts client.NetworkRemoveOptions) (client.NetworkRemoveResult, error)
	ContainerCreate(ctx context.Context, opts client.ContainerCreateOptions) (client.ContainerCreateResult, error)
	ContainerStart(ctx context.Context, container string, opts client.ContainerStartOptions) (client.ContainerStartResult, error)
	ContainerStop(ctx context.Context, container string, opts client.ContainerStopOptions) (client.ContainerStopResult, error)
	ContainerRemove(ctx context.Context, container string, opts client.ContainerRemoveOptions) (client.ContainerRemoveResult, error)
	ContainerInspect(ctx context.Context, container string, opts client.ContainerInspectOptions) (client.ContainerInspectResult, error)
	ContainerList(ctx context.Context, opts client.ContainerListOptions) (client.ContainerListResult, error)
	ContainerLogs(ctx context.Context, container string, opts client.ContainerLogsOptions) (client.ContainerLogsResult, error)
}

var _ Engine = (*client.Client)(nil)

// NamePrefix starts the name of every container and network the runtime
// creates.
const NamePrefix = "gpunex-job-"

// ContainerName is the name of a job's container and of its network.
func ContainerName(jobID string) string { return NamePrefix + jobID }

// DefaultStopGrace is how long a job has to exit after SIGTERM before the
// engine kills it.
const DefaultStopGrace = 10 * time.Second

// Options tunes a Runtime; the zero value is usable.
type Options struct {
	// Clock stamps deadlines; the system clock by default.
	Clock clock.Clock
	// StopGrace is the time between SIGTERM and SIGKILL on Stop;
	// DefaultStopGrace when zero.
	StopGrace time.Duration
	// WithoutGPUs leaves the GPU device request out, so containers get no
	// GPU at all: for an engine without the NVIDIA Container Toolkit, which
	// refuses the request (the tests on a real engine). It only takes
	// access away; the agent never sets it.
	WithoutGPUs bool
}

// Runtime is the docker job.Runtime.
type Runtime struct {
	engine    Engine
	clock     clock.Clock
	stopGrace time.Duration
	noGPUs    bool

	mu sync.Mutex
	// starting holds the GPUs of each Start under way, by job id: two
	// Starts of one job never race, and two jobs never take one GPU
	// between the engine's list and their containers' start.
	starting map[string][]string

	// netMu is held from listing the engine's networks to creating a
	// job's: the list cannot show a network another Start is about to
	// create, so two Starts never pick one subnet.
	netMu sync.Mutex
}

var _ job.Runtime = (*Runtime)(nil)

// New returns a runtime over engine. It keeps no state of its own: all it
// knows is in the engine, under its labels.
func New(engine Engine, opts Options) *Runtime {
	r := &Runtime{engine: engine, clock: opts.Clock, stopGrace: opts.StopGrace, noGPUs: opts.WithoutGPUs, starting: make(map[string][]string)}
	if r.clock == nil {
		r.clock = clock.Real{}
	}
	if r.stopGrace <= 0 {
		r.stopGrace = DefaultStopGrace
	}
	return r
}

// Start validates spec, refuses it if another job of ours holds one of its
// GPUs, pulls the image if the engine lacks it, creates the job's network
// and container, and starts it. On failure it removes what it created.
func (r *Runtime) Start(ctx context.Context, spec job.Spec) (job.Job, error) {
	if err := spec.Validate(); err != nil {
		return job.Job{}, err
	}
	if strings.TrimSpace(spec.Image) == "" {
		return job.Job{}, fmt.Errorf("%w: image: required by the docker runtime", job.ErrInvalidSpec)
	}
	if err := r.reserve(spec); err != nil {
		return job.Job{}, err
	}
	defer func() {
		r.mu.Lock()
		delete(r.starting, spec.ID)
		r.mu.Unlock()
	}()

	switch _, err := r.Inspect(ctx, spec.ID); {
	case err == nil:
		return job.Job{}, fmt.Errorf("docker: start %s: %w", spec.ID, job.ErrExists)
	case !errors.Is(err, job.ErrNotFound):
		return job.Job{}, err
	}
	// Before the image: a refused job should not cost the provider a pull.
	if err := r.refuseHeldGPUs(ctx, spec); err != nil {
		return job.Job{}, err
	}
	if err := r.ensureImage(ctx, spec.Image); err != nil {
		return job.Job{}, err
	}

	name := ContainerName(spec.ID)
	labels := r.labels(spec)
	if err := r.createNetwork(ctx, name, labels); err != nil {
		return job.Job{}, err
	}
	created, err := r.engine.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name:             name,
		Config:           containerConfig(spec, labels),
		HostConfig:       r.hostConfig(spec, name),
		NetworkingConfig: &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{name: {}}},
	})
	if err != nil {
		r.cleanup(name, "")
		return job.Job{}, fmt.Errorf("docker: create container %s: %w", name, customerInput(err))
	}
	if _, err := r.engine.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		r.cleanup(name, created.ID)
		return job.Job{}, fmt.Errorf("docker: start container %s: %w", name, customerInput(err))
	}
	return r.Inspect(ctx, spec.ID)
}

// customerInput marks an engine refusal of the job's own configuration
// (an invalid parameter: a command not found in the image, a bad working
// directory) as job.ErrInvalidSpec, so it is reported as the customer's.
// Anything else is the host's.
func customerInput(err error) error {
	if cerrdefs.IsInvalidArgument(err) {
		return fmt.Errorf("%w: %w", job.ErrInvalidSpec, err)
	}
	return err
}

// reserve records spec's Start as under way, refusing a second Start of
// the same job and a job wanting a GPU that another Start under way has
// claimed (its container may not be running yet, so the engine's list
// cannot show it).
func (r *Runtime) reserve(spec job.Spec) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.starting[spec.ID]; ok {
		return fmt.Errorf("docker: start %s: already starting: %w", spec.ID, job.ErrExists)
	}
	holders := make(map[string]string)
	for id, gpus := range r.starting {
		for _, u := range gpus {
			holders[u] = id + " (starting)"
		}
	}
	if err := heldError(spec, holders); err != nil {
		return err
	}
	r.starting[spec.ID] = spec.GPUUUIDs
	return nil
}

// holdingStates are the states of a container whose processes exist and so
// hold its GPUs. A created container has not opened them yet; an exited or
// dead one has let them go.
var holdingStates = []container.ContainerState{container.StateRunning, container.StatePaused, container.StateRestarting}

// refuseHeldGPUs returns ErrGPUInUse, naming each GPU and the job holding
// it, if a container of ours in a holding state has one of spec's GPUs.
//
// The GPUs come from the LabelGPUs label, not from inspecting each
// container's DeviceRequests: the engine's list returns labels, so one
// call is a consistent view of every job (inspecting would take a call per
// container, and containers may go between the list and the inspects); the
// label is written in the same create request as the device request, from
// the same validated spec, and the engine lets neither change afterwards;
// and it is the record List and a restarted agent already rely on.
func (r *Runtime) refuseHeldGPUs(ctx context.Context, spec job.Spec) error {
	filters := make(client.Filters).Add("label", job.LabelManaged+"=true")
	for _, s := range holdingStates {
		filters = filters.Add("status", string(s))
	}
	res, err := r.engine.ContainerList(ctx, client.ContainerListOptions{Filters: filters})
	if err != nil {
		return fmt.Errorf("docker: start %s: list running jobs: %w", spec.ID, err)
	}
	holders := make(map[string]string)
	for _, c := range res.Items {
		j := fromLabels(c.Labels)
		for _, u := range j.GPUUUIDs {
			holders[u] = j.ID
		}
	}
	return heldError(spec, holders)
}

// heldError names every GPU of spec found in holders (GPU UUID -> job) and
// wraps ErrGPUInUse; nil if none is.
func heldError(spec job.Spec, holders map[string]string) error {
	var held []string
	for _, u := range spec.GPUUUIDs {
		if id, ok := holders[u]; ok {
			held = append(held, fmt.Sprintf("%s is held by job %s", u, id))
		}
	}
	if len(held) == 0 {
		return nil
	}
	return fmt.Errorf("docker: start %s: %s: %w", spec.ID, strings.Join(held, ", "), job.ErrGPUInUse)
}

// containerConfig is the container's portable configuration: image,
// command, environment and labels. The image's user is kept: jobs are
// built from customers' images.
func containerConfig(spec job.Spec, labels map[string]string) *container.Config {
	env := append([]string{"GPUNEX_JOB_ID=" + spec.ID}, spec.Env...)
	return &container.Config{
		Image:  spec.Image,
		Cmd:    spec.Command,
		Env:    env,
		Labels: labels,
	}
}

// hostConfig is the isolation the provider guide promises, field by field.
// Whatever is not set here keeps Docker's default, which adds nothing from
// the host: no binds, no mounts, no devices besides the GPUs, private pid,
// ipc and uts namespaces.
func (r *Runtime) hostConfig(spec job.Spec, networkName string) *container.HostConfig {
	pids := spec.PidsLimit
	devices := []container.DeviceRequest{{
		Driver:       "nvidia",
		DeviceIDs:    spec.GPUUUIDs,
		Capabilities: [][]string{{"gpu"}},
	}}
	if r.noGPUs {
		devices = nil
	}
	return &container.HostConfig{
		NetworkMode:   container.NetworkMode(networkName),
		RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyDisabled},
		Privileged:    false,
		CapDrop:       []string{"ALL"},
		SecurityOpt:   []string{"no-new-privileges"},
		ShmSize:       spec.ShmBytes,
		Resources: container.Resources{
			Memory:         spec.MemoryBytes,
			MemorySwap:     spec.MemoryBytes, // equal to Memory: no swap on top
			PidsLimit:      &pids,
			DeviceRequests: devices,
		},
	}
}

// labels are put on the job's container and network.
func (r *Runtime) labels(spec job.Spec) map[string]string {
	l := map[string]string{
		job.LabelManaged: "true",
		job.LabelJobID:   spec.ID,
		job.LabelGPUs:    strings.Join(spec.GPUUUIDs, ","),
	}
	if spec.Timeout > 0 {
		l[job.LabelDeadline] = r.clock.Now().Add(spec.Timeout).UTC().Format(time.RFC3339)
	}
	return l
}

// ensureImage pulls image unless the engine already has it.
func (r *Runtime) ensureImage(ctx context.Context, image string) error {
	_, err := r.engine.ImageInspect(ctx, image)
	if err == nil {
		return nil
	}
	if !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("docker: inspect image %s: %w", image, err)
	}
	pull, err := r.engine.ImagePull(ctx, image, client.ImagePullOptions{})
	if err != nil {
		return pullError(image, err)
	}
	defer pull.Close()
	if err := pull.Wait(ctx); err != nil {
		return pullError(image, err)
	}
	return nil
}

// pullError wraps a failed pull in job.ErrImage (the customer's image
// cannot be had), unless the engine itself did not answer or the pull was
// cancelled: those are the host's.
func pullError(image string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || client.IsErrConnectionFailed(err) {
		return fmt.Errorf("docker: pull %s: %w", image, err)
	}
	return fmt.Errorf("docker: pull %s: %w (%w)", image, err, job.ErrImage)
}

// createNetwork creates the job's own bridge network on a free subnet of
// SubnetPool, with inter-container traffic off and no IPv6. A network left
// by a crashed earlier attempt is removed and created afresh.
func (r *Runtime) createNetwork(ctx context.Context, name string, labels map[string]string) error {
	r.netMu.Lock()
	defer r.netMu.Unlock()
	// Another client of the engine (a second agent, a test) may take the
	// subnet between freeSubnet's listing and the create: the engine then
	// refuses with "Pool overlaps" and the networks are listed again. The
	// first try takes the lowest free subnet; a retry takes one at random
	// among the free, so clients that collided once, all reaching for the
	// same lowest subnet, spread out instead of colliding again in turn.
	var err error
	for attempt := range createNetworkAttempts {
		subnet, ferr := r.freeSubnet(ctx, name, attempt > 0)
		if ferr != nil {
			return ferr
		}
		noIPv6 := false
		opts := client.NetworkCreateOptions{
			Driver:     "bridge",
			EnableIPv6: &noIPv6,
			IPAM:       &network.IPAM{Config: []network.IPAMConfig{{Subnet: subnet}}},
			Options:    map[string]string{iccOption: "false"},
			Labels:     labels,
		}
		_, err = r.engine.NetworkCreate(ctx, name, opts)
		if cerrdefs.IsConflict(err) {
			if _, rmErr := r.engine.NetworkRemove(ctx, name, client.NetworkRemoveOptions{}); rmErr != nil {
				return fmt.Errorf("docker: remove stale network %s: %w", name, rmErr)
			}
			_, err = r.engine.NetworkCreate(ctx, name, opts)
		}
		if err == nil || !strings.Contains(err.Error(), "Pool overlaps") {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("docker: create network %s: %w", name, err)
	}
	return nil
}

// createNetworkAttempts bounds the subnets createNetwork tries when other
// clients of the engine take them first. With retries spread at random
// over the pool's free subnets, 24 agents starting at once on one engine
// all get theirs (TestDockerStartsOfManyAgentsOnOneEngineAllGetASubnet).
const createNetworkAttempts = 16

// cleanup removes what a failed Start created. It runs on its own context:
// the caller's may be what failed.
func (r *Runtime) cleanup(name, containerID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if containerID != "" {
		_, _ = r.engine.ContainerRemove(ctx, containerID, client.ContainerRemoveOptions{Force: true})
	}
	_, _ = r.engine.NetworkRemove(ctx, name, client.NetworkRemoveOptions{})
}

// Stop sends the job SIGTERM, kills it after the grace period, and removes
// its container and network. A job that is already gone is not an error.
func (r *Runtime) Stop(ctx context.Context, id string) error {
	name := ContainerName(id)
	j, err := r.Inspect(ctx, id)
	switch {
	case errors.Is(err, job.ErrNotFound):
		// Nothing of ours to stop; a network may still be left over.
	case err != nil:
		return err
	default:
		grace := int(r.stopGrace / time.Second)
		if j.State == job.StateRunning {
			if _, err := r.engine.ContainerStop(ctx, j.RuntimeID, client.ContainerStopOptions{Timeout: &grace}); err != nil && !cerrdefs.IsNotFound(err) {
				return fmt.Errorf("docker: stop container %s: %w", name, err)
			}
		}
		if _, err := r.engine.ContainerRemove(ctx, j.RuntimeID, client.ContainerRemoveOptions{Force: true}); err != nil && !cerrdefs.IsNotFound(err) {
			return fmt.Errorf("docker: remove container %s: %w", name, err)
		}
	}
	if _, err := r.engine.NetworkRemove(ctx, name, client.NetworkRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("docker: remove network %s: %w", name, err)
	}
	return nil
}

// Halt stops the job's container (SIGTERM, SIGKILL after the grace
// period) and returns it as it ended; the container, its exit code and its
// logs stay until Stop.
func (r *Runtime) Halt(ctx context.Context, id string) (job.Job, error) {
	j, err := r.Inspect(ctx, id)
	if err != nil || j.State == job.StateExited {
		return j, err
	}
	grace := int(r.stopGrace / time.Second)
	if _, err := r.engine.ContainerStop(ctx, j.RuntimeID, client.ContainerStopOptions{Timeout: &grace}); err != nil && !cerrdefs.IsNotFound(err) {
		return job.Job{}, fmt.Errorf("docker: stop container %s: %w", ContainerName(id), err)
	}
	j, err = r.Inspect(ctx, id)
	if err == nil && j.Reason == "" {
		j.Reason = "stopped"
	}
	return j, err
}

// logLines is how many lines of a container's log Logs asks the engine for:
// enough to fill the largest tail a report carries with short lines; the
// bytes are bounded afterwards.
const logLines = 2000

// Logs returns the end of the container's stdout and stderr, at most
// maxBytes, from the engine's log (the json-file or local driver the host
// configures; a driver that cannot be read back gives an error).
func (r *Runtime) Logs(ctx context.Context, id string, maxBytes int) (string, error) {
	j, err := r.Inspect(ctx, id)
	if err != nil {
		return "", err
	}
	rc, err := r.engine.ContainerLogs(ctx, j.RuntimeID, client.ContainerLogsOptions{
		ShowStdout: true, ShowStderr: true, Tail: strconv.Itoa(logLines),
	})
	if err != nil {
		return "", fmt.Errorf("docker: logs of %s: %w", ContainerName(id), err)
	}
	defer rc.Close()
	tail := &tailBuffer{max: maxBytes + utf8.UTFMax}
	// Jobs get no TTY, so the stream is multiplexed; both go to one tail.
	if _, err := stdcopy.StdCopy(tail, tail, rc); err != nil {
		return "", fmt.Errorf("docker: logs of %s: %w", ContainerName(id), err)
	}
	return job.Tail(tail.buf, maxBytes), nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// Inspect reports the job's container. A container with the job's name
// that GPUnex did not create is not reported (ErrNotFound).
func (r *Runtime) Inspect(ctx context.Context, id string) (job.Job, error) {
	res, err := r.engine.ContainerInspect(ctx, ContainerName(id), client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return job.Job{}, fmt.Errorf("docker: job %s: %w", id, job.ErrNotFound)
	}
	if err != nil {
		return job.Job{}, fmt.Errorf("docker: inspect job %s: %w", id, err)
	}
	c := res.Container
	if c.Config == nil || c.Config.Labels[job.LabelManaged] != "true" {
		return job.Job{}, fmt.Errorf("docker: job %s (container not created by GPUnex): %w", id, job.ErrNotFound)
	}
	j := fromLabels(c.Config.Labels)
	j.RuntimeID = c.ID
	if c.State != nil {
		j.State = state(c.State.Status)
		j.StartedAt = parseTime(c.State.StartedAt)
		j.FinishedAt = parseTime(c.State.FinishedAt)
		if j.State == job.StateExited {
			j.ExitCode = &c.State.ExitCode
			if c.State.OOMKilled {
				j.Reason = "oom-killed"
			}
		}
	}
	return j, nil
}

// List reports every container with the GPUnex label, running or exited.
// It does not carry times or exit codes (the engine's list has none);
// Inspect a job for those.
func (r *Runtime) List(ctx context.Context) ([]job.Job, error) {
	res, err := r.engine.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", job.LabelManaged+"=true"),
	})
	if err != nil {
		return nil, fmt.Errorf("docker: list jobs: %w", err)
	}
	jobs := make([]job.Job, 0, len(res.Items))
	for _, c := range res.Items {
		j := fromLabels(c.Labels)
		j.RuntimeID = c.ID
		j.State = state(c.State)
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// fromLabels rebuilds what the labels remember of a job.
func fromLabels(labels map[string]string) job.Job {
	j := job.Job{ID: labels[job.LabelJobID]}
	if g := labels[job.LabelGPUs]; g != "" {
		j.GPUUUIDs = strings.Split(g, ",")
	}
	j.Deadline = parseTime(labels[job.LabelDeadline])
	return j
}

func state(s container.ContainerState) job.State {
	switch s {
	case container.StateCreated:
		return job.StateCreated
	case container.StateRunning:
		return job.StateRunning
	case container.StateExited:
		return job.StateExited
	default:
		return job.StateUnknown
	}
}

// parseTime reads the engine's RFC 3339 times; its "never" is the zero
// time, which stays zero.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.IsZero() || t.Year() <= 1 {
		return time.Time{}
	}
	return t.UTC()
}
