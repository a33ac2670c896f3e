package client

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

// Operation names, as sent in operationName.
const (
	registerOperation  = "RegisterMachine"
	heartbeatOperation = "Heartbeat"
)
