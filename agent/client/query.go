package client

import "github.com/gpunex/gpunex/agent/protocol"

// RegisterMachineMutation and HeartbeatMutation are the agent's two
// documents (package protocol holds them, so the server can prepare them
// without linking the agent).
const (
	RegisterMachineMutation = protocol.RegisterMachineMutation
	HeartbeatMutation       = protocol.HeartbeatMutation
)

// Operation names, as sent in operationName.
const (
	registerOperation  = protocol.RegisterMachineOperation
	heartbeatOperation = protocol.HeartbeatOperation
)
