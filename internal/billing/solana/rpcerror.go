package solana

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

// Errors a caller branches on. They are matched with errors.Is.
var (
	// ErrBlockhashNotFound: the node refused a transaction whose blockhash
	// it does not know, usually because it expired. Only Expired says the
	// old transaction can never land; a lagging node says this too.
	ErrBlockhashNotFound = errors.New("solana: blockhash not found")
	// ErrFailed: the transaction landed and failed on chain; nothing moved
	// but the fee. Its signature can never land again, so a new
	// transaction is safe once the cause is fixed.
	ErrFailed = errors.New("solana: transaction failed on chain")
	// ErrExpired: the transaction is not on chain and its blockhash has
	// expired, so it can never land; Prepare a new one.
	ErrExpired = errors.New("solana: transaction expired without landing")
)

// RPCError is an error answer of the node, with the transaction error of a
// refused sendTransaction when the node gave one.
type RPCError struct {
	// Method is the JSON-RPC method called.
	Method string
	// Code and Message are the JSON-RPC error's.
	Code    int
	Message string
	// TxErr is the transaction error of a failed preflight: a name such as
	// "BlockhashNotFound" or "AlreadyProcessed", or JSON for structured
	// ones ({"InstructionError":[1,{"Custom":1}]}). Empty when none.
	TxErr string
}

// Error returns the method, code, message and transaction error.
func (e *RPCError) Error() string {
	s := fmt.Sprintf("solana: %s: rpc error %d: %s", e.Method, e.Code, e.Message)
	if e.TxErr != "" {
		s += " (" + e.TxErr + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrBlockhashNotFound) hold for a send refused
// for its blockhash.
func (e *RPCError) Is(target error) bool {
	return target == ErrBlockhashNotFound && e.TxErr == "BlockhashNotFound"
}

// alreadyProcessed reports whether a send was refused because the very
// same transaction is already on chain: for the caller, a success.
func (e *RPCError) alreadyProcessed() bool { return e.TxErr == "AlreadyProcessed" }

// rpcError turns the client's errors into *RPCError (solana-go's own
// prints a multi-line dump) and prefixes the others with the method.
func rpcError(method string, err error) error {
	var re *jsonrpc.RPCError
	if !errors.As(err, &re) {
		return fmt.Errorf("solana: %s: %w", method, err)
	}
	out := &RPCError{Method: method, Code: re.Code, Message: re.Message}
	if data, ok := re.Data.(map[string]any); ok {
		switch e := data["err"].(type) {
		case nil:
		case string:
			out.TxErr = e
		default:
			if b, err := json.Marshal(e); err == nil {
				out.TxErr = string(b)
			}
		}
	}
	return out
}
