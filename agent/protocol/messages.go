package protocol

import "time"

// MachineStatus is whether the platform hears from a machine
// (MachineStatus in the schema).
type MachineStatus string

// The machine states.
const (
	MachineOnline  MachineStatus = "ONLINE"
	MachineOffline MachineStatus = "OFFLINE"
)

// CommandKind is what a command asks the agent to do (AgentCommandKind).
type CommandKind string

// The command kinds.
const (
	CommandStartJob     CommandKind = "START_JOB"
	CommandStopJob      CommandKind = "STOP_JOB"
	CommandRunBenchmark CommandKind = "RUN_BENCHMARK"
	// CommandSetInterval ({"seconds": N}) is handled by the agent's client
	// itself.
	CommandSetInterval CommandKind = "SET_INTERVAL"
)

// GpuInventory is one GPU's static facts as registerMachine takes them
// (GpuInventoryInput). Optional facts are nil where the board does not
// report them.
type GpuInventory struct {
	UUID              string   `json:"uuid"`
	Index             int      `json:"index"`
	Name              string   `json:"name"`
	VRAMBytes         *float64 `json:"vramBytes,omitempty"`
	PCIBusID          *string  `json:"pciBusId,omitempty"`
	DriverVersion     *string  `json:"driverVersion,omitempty"`
	CUDADriverVersion *string  `json:"cudaDriverVersion,omitempty"`
	PowerLimitW       *float64 `json:"powerLimitW,omitempty"`
	Simulated         bool     `json:"simulated"`
}

// RegisterMachineInput registers (or re-registers) a machine and its GPUs
// (RegisterMachineInput).
type RegisterMachineInput struct {
	MachineID    string         `json:"machineId"`
	Hostname     string         `json:"hostname"`
	AgentVersion string         `json:"agentVersion"`
	Gpus         []GpuInventory `json:"gpus"`
	// Host is what the agent says about the machine beyond its GPUs; nil
	// from an agent that does not report it (before issue 26).
	Host *HostFacts `json:"host,omitempty"`
}

// HostFacts is the machine's CPU, memory and disk as the agent reads them
// (HostFactsInput): the provider's claim, listed as such. Each fact is nil
// where the agent could not read it. Bytes are Floats on the wire, as
// GpuInventory.VRAMBytes is: they exceed GraphQL's 32-bit Int.
type HostFacts struct {
	// CPUModel is the CPU's model name (/proc/cpuinfo's "model name").
	CPUModel *string `json:"cpuModel,omitempty"`
	// CPUCores is the number of logical CPUs.
	CPUCores *int `json:"cpuCores,omitempty"`
	// RAMBytes is the total memory (/proc/meminfo's MemTotal).
	RAMBytes *float64 `json:"ramBytes,omitempty"`
	// DiskBytes and DiskFreeBytes are the size and the space free to the
	// agent of the filesystem holding the agent's data directory.
	DiskBytes     *float64 `json:"diskBytes,omitempty"`
	DiskFreeBytes *float64 `json:"diskFreeBytes,omitempty"`
}

// RegisterMachineVariables are RegisterMachineMutation's variables.
type RegisterMachineVariables struct {
	Input RegisterMachineInput `json:"input"`
}

// GpuTelemetry is one GPU's live sample (GpuTelemetryInput). Nil fields
// are ones the GPU does not report. The platform keeps the latest one per
// GPU in its presence store in this same encoding.
type GpuTelemetry struct {
	UUID            string   `json:"uuid"`
	UtilizationPct  *float64 `json:"utilizationPct,omitempty"`
	MemoryUsedBytes *float64 `json:"memoryUsedBytes,omitempty"`
	TemperatureC    *float64 `json:"temperatureC,omitempty"`
	PowerDrawW      *float64 `json:"powerDrawW,omitempty"`
	SMClockMHz      *int     `json:"smClockMHz,omitempty"`
	ThrottleReasons []string `json:"throttleReasons,omitempty"`
	ECCCorrected    *float64 `json:"eccCorrected,omitempty"`
	ECCUncorrected  *float64 `json:"eccUncorrected,omitempty"`
	// RecentUtilizationPct are the GPU's latest utilisation readings,
	// oldest first, this one last (the dashboard's sparkline and chart).
	RecentUtilizationPct []float64 `json:"recentUtilizationPct,omitempty"`
}

// HeartbeatInput is one heartbeat (HeartbeatInput). It is also what the
// agent's buffer stores, one per line, so a replayed heartbeat is the one
// that was sampled, At included.
type HeartbeatInput struct {
	MachineID string `json:"machineId"`
	// At is when the sample was taken (RFC 3339, UTC); nil means now.
	At   *time.Time     `json:"at,omitempty"`
	Gpus []GpuTelemetry `json:"gpus"`
	// GoingOffline says the agent is stopping on purpose: the machine is
	// offline (planned) at once.
	GoingOffline *bool `json:"goingOffline,omitempty"`
}

// HeartbeatVariables are HeartbeatMutation's variables.
type HeartbeatVariables struct {
	Input HeartbeatInput `json:"input"`
}

// AgentCommand is work the platform asks of the agent, delivered in a
// heartbeat answer (AgentCommand).
type AgentCommand struct {
	ID   string      `json:"id"`
	Kind CommandKind `json:"kind"`
	// Payload is the command's JSON arguments, as a string.
	Payload string `json:"payload"`
}

// UserError is one problem with an input (UserError): nothing was changed.
// It is the wire's copy of the server's user error (internal/fault's
// Problem, which gqlgen binds to UserError): the agent does not link the
// server, so the code is a plain string here, one of the schema's
// UserErrorCode values.
type UserError struct {
	// Field is the input field's dot-separated path, e.g. input.gpus.0.uuid.
	Field string `json:"field"`
	// Message is an English explanation.
	Message string `json:"message"`
	// Code is the stable reason, e.g. REQUIRED or OUT_OF_RANGE.
	Code string `json:"code"`
}

// HeartbeatPayload answers a heartbeat (HeartbeatPayload), its members in
// HeartbeatMutation's selection order.
type HeartbeatPayload struct {
	Accepted bool `json:"accepted"`
	// Status is the machine's status after the heartbeat; nil when it was
	// refused.
	Status          *MachineStatus `json:"status"`
	IntervalSeconds int            `json:"intervalSeconds"`
	Commands        []AgentCommand `json:"commands"`
	UserErrors      []UserError    `json:"userErrors"`
}

// RegisteredMachine is the machine as RegisterMachineMutation selects it.
type RegisteredMachine struct {
	ID        string        `json:"id"`
	MachineID string        `json:"machineId"`
	Status    MachineStatus `json:"status"`
}

// RegisterMachineAnswer is registerMachine's answer as
// RegisterMachineMutation selects it (the schema's RegisterMachinePayload
// holds the whole Machine, so the server does not bind it to this type).
type RegisterMachineAnswer struct {
	Machine                  *RegisteredMachine `json:"machine"`
	HeartbeatIntervalSeconds int                `json:"heartbeatIntervalSeconds"`
	UserErrors               []UserError        `json:"userErrors"`
}

// A machine id is the identity the agent keeps in its data directory:
// MachineIDMinLength to MachineIDMaxLength characters of A-Z, a-z, 0-9,
// '-' and '_'. The agent makes one; the platform refuses any other.
const (
	MachineIDMinLength = 8
	MachineIDMaxLength = 64
)

// ValidMachineID reports whether id is a well-formed machine id.
func ValidMachineID(id string) bool {
	if len(id) < MachineIDMinLength || len(id) > MachineIDMaxLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
