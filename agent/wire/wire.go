// Package wire holds the GraphQL documents gpunex-agent sends, verbatim:
// everything that changes travels in variables, so the text never does.
// The server prepares the heartbeat document at startup (see
// internal/api.Prepared), so a change here is a change to both sides and
// the prepared-path tests say so.
package wire

// The operations' names, as sent in operationName.
const (
	RegisterMachineOperation = "RegisterMachine"
	HeartbeatOperation       = "Heartbeat"
)

// RegisterMachineMutation is the registerMachine operation, sent verbatim
// every time with the input in variables.
const RegisterMachineMutation = `mutation RegisterMachine($input: RegisterMachineInput!) {
  registerMachine(input: $input) {
    machine { id machineId status }
    heartbeatIntervalSeconds
    userErrors { field message code }
  }
}`

// HeartbeatMutation is the heartbeat operation, sent verbatim for every
// heartbeat (live, replayed or the last one) with the input in variables.
const HeartbeatMutation = `mutation Heartbeat($input: HeartbeatInput!) {
  heartbeat(input: $input) {
    accepted
    status
    intervalSeconds
    commands { id kind payload }
    userErrors { field message code }
  }
}`
