package solanatest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	solana "github.com/gagliardetto/solana-go"
)

// request and response are JSON-RPC 2.0's.
type request struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object; Data carries the transaction error
// of a refused send as a node's preflight does ({"err": ...}).
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// The error codes of Solana's RPC that the server answers with.
const (
	codeInvalidRequest      = -32600
	codeMethodNotFound      = -32601
	codeInvalidParams       = -32602
	codeSimulationFailed    = -32002
	codeSignatureFailure    = -32003
	codeNodeUnhealthy       = -32005
	slotsAheadOfBlockHeight = 7_000
)

// simulationFailed is a refused preflight with txErr as data.err.
func simulationFailed(message string, txErr any) *rpcError {
	return &rpcError{
		Code:    codeSimulationFailed,
		Message: "Transaction simulation failed: " + message,
		Data:    map[string]any{"err": txErr, "logs": []string{}, "accounts": nil, "unitsConsumed": 0},
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "JSON-RPC takes POST", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req request
	resp := response{JSONRPC: "2.0"}
	if err := json.Unmarshal(body, &req); err != nil || req.JSONRPC != "2.0" {
		resp.Error = &rpcError{Code: codeInvalidRequest, Message: "invalid JSON-RPC 2.0 request"}
	} else {
		resp.ID = req.ID
		resp.Result, resp.Error = s.call(req.Method, req.Params)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// call runs one method under the lock: each request sees and leaves the
// chain consistent.
func (s *Server) call(method string, params []json.RawMessage) (any, *rpcError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[method]++
	switch method {
	case "getLatestBlockhash":
		return s.getLatestBlockhash()
	case "getBlockHeight":
		return s.height, nil
	case "getFirstAvailableBlock":
		return s.firstAvailable, nil
	case "getSlot":
		// One fork, finalized at once: every commitment's slot is the
		// chain's.
		return s.height + slotsAheadOfBlockHeight, nil
	case "sendTransaction":
		return s.sendTransaction(params)
	case "getSignatureStatuses":
		return s.getSignatureStatuses(params)
	case "getAccountInfo":
		return s.getAccountInfo(params)
	case "getSignaturesForAddress":
		return s.getSignaturesForAddress(params)
	case "getTransaction":
		return s.getTransaction(params)
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "Method not found: " + method}
}

// withContext wraps value as the methods that answer at a slot do.
func (s *Server) withContext(value any) map[string]any {
	return map[string]any{
		"context": map[string]any{"slot": s.height + slotsAheadOfBlockHeight},
		"value":   value,
	}
}

func (s *Server) getLatestBlockhash() (any, *rpcError) {
	s.hashes++
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], s.hashes)
	hash := solana.Hash(sha256.Sum256(seed[:]))
	last := s.height + BlockhashValidity
	s.blockhashes[hash] = last
	return s.withContext(map[string]any{"blockhash": hash.String(), "lastValidBlockHeight": last}), nil
}

func (s *Server) getAccountInfo(params []json.RawMessage) (any, *rpcError) {
	var pk solana.PublicKey
	if len(params) < 1 || json.Unmarshal(params[0], &pk) != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid params: want [pubkey, config]"}
	}
	a, ok := s.accounts[pk]
	if !ok {
		return s.withContext(nil), nil
	}
	return s.withContext(map[string]any{
		"lamports":   a.Lamports,
		"owner":      a.Owner.String(),
		"data":       []string{"", "base64"},
		"executable": a.Executable,
		"rentEpoch":  0,
		"space":      0,
	}), nil
}

func (s *Server) getSignatureStatuses(params []json.RawMessage) (any, *rpcError) {
	var sigs []string
	if len(params) < 1 || json.Unmarshal(params[0], &sigs) != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid params: want [[signature...], config]"}
	}
	var cfg struct {
		SearchTransactionHistory bool `json:"searchTransactionHistory"`
	}
	if len(params) > 1 {
		if err := json.Unmarshal(params[1], &cfg); err != nil {
			return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid params: config: " + err.Error()}
		}
	}
	out := make([]any, len(sigs))
	for i, str := range sigs {
		sig, err := solana.SignatureFromBase58(str)
		if err != nil {
			return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid param: " + err.Error()}
		}
		out[i] = s.status(sig, cfg.SearchTransactionHistory)
	}
	return s.withContext(out), nil
}

// status answers for one signature: null if it never landed, or is out of
// the status cache and history was not searched.
func (s *Server) status(sig solana.Signature, history bool) any {
	s.lookups[sig]++
	l, ok := s.txs[sig]
	if !ok || !l.landed || (!history && s.height > l.height+StatusCacheBlocks) {
		return nil
	}
	st := map[string]any{"slot": l.transfer.Slot, "err": l.err}
	if l.err == nil {
		st["status"] = map[string]any{"Ok": nil}
	} else {
		st["status"] = map[string]any{"Err": l.err}
	}
	switch {
	case l.pending > 0:
		l.pending--
		st["confirmations"] = 0
		st["confirmationStatus"] = "processed"
	case l.held:
		st["confirmations"] = 1
		st["confirmationStatus"] = "confirmed"
	default:
		st["confirmations"] = nil
		st["confirmationStatus"] = "finalized"
	}
	return st
}

// sendTransaction checks the transaction and lands it, once.
func (s *Server) sendTransaction(params []json.RawMessage) (any, *rpcError) {
	if len(s.faults) > 0 && s.faults[0].fault == faultFail {
		s.faults = s.faults[1:]
		return nil, &rpcError{Code: codeNodeUnhealthy, Message: "Node is unhealthy (injected by solanatest)"}
	}
	var b64 string
	if len(params) < 1 || json.Unmarshal(params[0], &b64) != nil {
		return nil, s.reject("", &rpcError{Code: codeInvalidParams, Message: "Invalid params: want [transaction, config]"})
	}
	if sig, ok, err := s.sendWalletTransaction(b64); ok {
		if err != nil {
			return nil, s.reject(sig, err)
		}
		return sig, nil
	}
	var cfg struct {
		Encoding string `json:"encoding"`
	}
	if len(params) > 1 {
		_ = json.Unmarshal(params[1], &cfg)
	}
	if cfg.Encoding != "base64" {
		return nil, s.reject("", &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("solanatest: encoding %q, want base64", cfg.Encoding)})
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, s.reject("", &rpcError{Code: codeInvalidParams, Message: "invalid transaction: not base64"})
	}
	tx, tr, err := s.check(raw)
	sig := ""
	if tx != nil && len(tx.Signatures) > 0 {
		sig = tx.Signatures[0].String()
	}
	if err != nil {
		if re, ok := errors.AsType[*rpcError](err); ok {
			return nil, s.reject(sig, re)
		}
		return nil, s.reject(sig, simulationFailed("solanatest: "+err.Error(), "InvalidTransaction"))
	}
	id := tx.Signatures[0]
	last, ok := s.blockhashes[tx.Message.RecentBlockhash]
	if !ok || s.height > last {
		return nil, s.reject(sig, simulationFailed("Blockhash not found", "BlockhashNotFound"))
	}
	l, seen := s.txs[id]
	if seen && l.landed {
		return nil, simulationFailed("This transaction has already been processed", "AlreadyProcessed")
	}
	if !seen {
		tr.Signature = sig
		l = &landing{transfer: tr}
		s.txs[id] = l
	}
	var q queued
	if len(s.faults) > 0 {
		q, s.faults = s.faults[0], s.faults[1:]
	}
	switch q.fault {
	case faultDrop:
		return sig, nil
	case faultDelay:
		l.pending = q.polls
	case faultFailOnChain:
		// SPL Token's error 1 is InsufficientFunds.
		l.err = map[string]any{"InstructionError": []any{1, map[string]any{"Custom": 1}}}
	}
	l.landed = true
	l.height = s.height
	l.transfer.Slot = s.height + slotsAheadOfBlockHeight
	if l.err == nil {
		s.transfers = append(s.transfers, l.transfer)
	}
	return sig, nil
}

// reject records why a send was refused and returns the error to answer.
func (s *Server) reject(sig string, e *rpcError) *rpcError {
	s.rejections = append(s.rejections, Rejection{Signature: sig, Reason: e.Message})
	return e
}
