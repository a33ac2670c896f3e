package protocol

import "time"

// StartJobPayload is START_JOB's payload: a rental's job as the platform
// asks the agent to run it.
type StartJobPayload struct {
	// JobID is the rental's job id; it names the container and network.
	JobID   string   `json:"jobId"`
	Image   string   `json:"image"`
	Command []string `json:"command,omitempty"`
	// Env are "KEY=value" entries.
	Env      []string `json:"env,omitempty"`
	GpuUUIDs []string `json:"gpuUuids"`
	// TimeoutSeconds ends the job when it passes (0: until stopped), e.g.
	// before a maintenance window the customer accepted.
	TimeoutSeconds int64 `json:"timeoutSeconds,omitempty"`
	MemoryBytes    int64 `json:"memoryBytes,omitempty"`
	PidsLimit      int64 `json:"pidsLimit,omitempty"`
	ShmBytes       int64 `json:"shmBytes,omitempty"`
}

// StopJobPayload is STOP_JOB's payload.
type StopJobPayload struct {
	JobID string `json:"jobId"`
}

// JobState is where a job is, as the agent reports it (JobState).
type JobState string

// The job states the agent reports.
const (
	JobStarting  JobState = "STARTING"
	JobRunning   JobState = "RUNNING"
	JobCompleted JobState = "COMPLETED"
	JobFailed    JobState = "FAILED"
)

// JobCause says whose side a failure is on (JobFailureCause): only
// PROVIDER causes count against the provider's reliability.
type JobCause string

// The causes.
const (
	// CauseProvider: the hardware or host failed (GPU busy or lost, the
	// machine went offline, the agent could not start the job for a reason
	// of the host's).
	CauseProvider JobCause = "PROVIDER"
	// CauseCustomer: the customer's job or input failed (its image cannot
	// be pulled, its command exited non-zero, it ran out of its memory).
	CauseCustomer JobCause = "CUSTOMER"
	// CausePlatform: the platform's own fault.
	CausePlatform JobCause = "PLATFORM"
)

// MaxLogTailBytes bounds the log tail a report carries.
const MaxLogTailBytes = 16 << 10

// ReportJobStatusInput is one report of a job's state
// (ReportJobStatusInput).
type ReportJobStatusInput struct {
	MachineID string   `json:"machineId"`
	JobID     string   `json:"jobId"`
	State     JobState `json:"state"`
	// At is when the state was reached.
	At time.Time `json:"at"`
	// Cause and Message explain a FAILED state.
	Cause    *JobCause `json:"cause,omitempty"`
	Message  *string   `json:"message,omitempty"`
	ExitCode *int      `json:"exitCode,omitempty"`
	// LogTail is the job's latest output, at most MaxLogTailBytes.
	LogTail *string `json:"logTail,omitempty"`
}

// ReportJobStatusVariables are ReportJobStatusMutation's variables.
type ReportJobStatusVariables struct {
	Input ReportJobStatusInput `json:"input"`
}

// ReportJobStatusAnswer is reportJobStatus's answer as
// ReportJobStatusMutation selects it.
type ReportJobStatusAnswer struct {
	Accepted bool `json:"accepted"`
	// Stop is true when the platform no longer wants the job (the rental
	// ended): the agent stops it.
	Stop       bool        `json:"stop"`
	UserErrors []UserError `json:"userErrors"`
}
