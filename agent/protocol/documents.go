package protocol

// The operations' names, as sent in operationName.
const (
	RegisterMachineOperation = "RegisterMachine"
	HeartbeatOperation       = "Heartbeat"
)

// RegisterMachineMutation is the registerMachine operation, sent verbatim
// every time with RegisterMachineVariables.
const RegisterMachineMutation = `mutation RegisterMachine($input: RegisterMachineInput!) {
  registerMachine(input: $input) {
    machine { id machineId status }
    heartbeatIntervalSeconds
    userErrors { field message code }
  }
}`

// HeartbeatMutation is the heartbeat operation, sent verbatim for every
// heartbeat (live, replayed or the last one) with HeartbeatVariables. The
// server answers it on its prepared path (internal/api), which checks at
// startup that HeartbeatPayload is shaped as its selection.
const HeartbeatMutation = `mutation Heartbeat($input: HeartbeatInput!) {
  heartbeat(input: $input) {
    accepted
    status
    intervalSeconds
    commands { id kind payload }
    userErrors { field message code }
  }
}`

// SubmitBenchmarkResultOperation is the name of the benchmark submission.
const SubmitBenchmarkResultOperation = "SubmitBenchmarkResult"

// SubmitBenchmarkResultMutation submits one run's result, sent verbatim
// with SubmitBenchmarkResultVariables; a replay of the same run id is
// answered with a userErrors entry (code DUPLICATE) and changes nothing.
const SubmitBenchmarkResultMutation = `mutation SubmitBenchmarkResult($input: BenchmarkResultInput!) {
  submitBenchmarkResult(input: $input) {
    accepted
    userErrors { field message code }
  }
}`

// ReportBenchmarkProgressOperation is the name of a run's progress report.
const ReportBenchmarkProgressOperation = "ReportBenchmarkProgress"

// ReportBenchmarkProgressMutation says one part of a run finished, sent
// verbatim with ReportBenchmarkProgressVariables; a part reported twice
// is accepted once.
const ReportBenchmarkProgressMutation = `mutation ReportBenchmarkProgress($input: BenchmarkProgressInput!) {
  reportBenchmarkProgress(input: $input) {
    accepted
    userErrors { field message code }
  }
}`

// ReportJobStatusOperation is the name of the job status report.
const ReportJobStatusOperation = "ReportJobStatus"

// ReportJobStatusMutation reports a job's state, sent verbatim with
// ReportJobStatusVariables.
const ReportJobStatusMutation = `mutation ReportJobStatus($input: ReportJobStatusInput!) {
  reportJobStatus(input: $input) {
    accepted
    stop
    userErrors { field message code }
  }
}`
