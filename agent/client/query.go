package client

import "github.com/gpunex/gpunex/agent/wire"

// RegisterMachineMutation and HeartbeatMutation are the agent's two
// documents (package wire holds them, so the server can prepare them
// without linking the agent).
const (
	RegisterMachineMutation = wire.RegisterMachineMutation
	HeartbeatMutation       = wire.HeartbeatMutation
)

// Operation names, as sent in operationName.
const (
	registerOperation  = wire.RegisterMachineOperation
	heartbeatOperation = wire.HeartbeatOperation
)
