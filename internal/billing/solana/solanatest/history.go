package solanatest

import (
	"encoding/base64"
	"encoding/json"
	"slices"

	solana "github.com/gagliardetto/solana-go"
)

// finalized reports whether l is finalized: landed, neither held nor
// still answering "processed".
func (l *landing) finalized() bool { return l.landed && !l.held && l.pending == 0 }

// getSignaturesForAddress lists the landed transactions that name the
// address, newest first, at the commitment asked (finalized by default;
// confirmed lists held ones too), honouring limit, before and until.
func (s *Server) getSignaturesForAddress(params []json.RawMessage) (any, *rpcError) {
	var pk solana.PublicKey
	if len(params) < 1 || json.Unmarshal(params[0], &pk) != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid params: want [address, config]"}
	}
	var cfg struct {
		Limit      *int   `json:"limit"`
		Before     string `json:"before"`
		Until      string `json:"until"`
		Commitment string `json:"commitment"`
	}
	if len(params) > 1 {
		if err := json.Unmarshal(params[1], &cfg); err != nil {
			return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid params: config: " + err.Error()}
		}
	}
	switch cfg.Commitment {
	case "":
		cfg.Commitment = "finalized"
	case "confirmed", "finalized":
	default:
		return nil, &rpcError{Code: codeInvalidParams, Message: "Method does not support commitment below `confirmed`"}
	}
	limit := 1000
	if cfg.Limit != nil {
		if *cfg.Limit < 1 || *cfg.Limit > 1000 {
			return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid limit; max 1000"}
		}
		limit = *cfg.Limit
	}
	out := []any{}
	started := cfg.Before == ""
	for _, id := range slices.Backward(s.landed) {
		if !started {
			started = id.String() == cfg.Before
			continue
		}
		if id.String() == cfg.Until || len(out) == limit {
			break
		}
		l := s.txs[id]
		if !slices.Contains(l.keys, pk) || (cfg.Commitment == "finalized" && !l.finalized()) {
			continue
		}
		level := "finalized"
		if !l.finalized() {
			level = "confirmed"
		}
		out = append(out, map[string]any{
			"signature":          id.String(),
			"slot":               l.transfer.Slot,
			"err":                l.err,
			"memo":               nil,
			"blockTime":          l.blockTime,
			"confirmationStatus": level,
		})
	}
	return out, nil
}

// getTransaction answers a landed wallet transaction in base64 with its
// meta (error, token balances before and after), or null: unknown, not a
// wallet's, or not yet at the commitment asked (finalized by default).
func (s *Server) getTransaction(params []json.RawMessage) (any, *rpcError) {
	var str string
	if len(params) < 1 || json.Unmarshal(params[0], &str) != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid params: want [signature, config]"}
	}
	sig, err := solana.SignatureFromBase58(str)
	if err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid param: " + err.Error()}
	}
	var cfg struct {
		Encoding   string `json:"encoding"`
		Commitment string `json:"commitment"`
	}
	if len(params) > 1 {
		if err := json.Unmarshal(params[1], &cfg); err != nil {
			return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid params: config: " + err.Error()}
		}
	}
	if cfg.Encoding != "base64" {
		return nil, &rpcError{Code: codeInvalidParams, Message: "solanatest: getTransaction answers encoding base64 only"}
	}
	if cfg.Commitment == "processed" {
		return nil, &rpcError{Code: codeInvalidParams, Message: "Method does not support commitment below `confirmed`"}
	}
	l, ok := s.txs[sig]
	if !ok || !l.landed || l.raw == nil || (cfg.Commitment != "confirmed" && !l.finalized()) {
		return json.RawMessage("null"), nil
	}
	balances := func(bs []tokenBalance) []any {
		out := make([]any, len(bs))
		for i, b := range bs {
			out[i] = b.json()
		}
		return out
	}
	lamports := make([]uint64, len(l.keys))
	status := map[string]any{"Ok": nil}
	if l.err != nil {
		status = map[string]any{"Err": l.err}
	}
	return map[string]any{
		"slot":        l.transfer.Slot,
		"blockTime":   l.blockTime,
		"transaction": []string{base64.StdEncoding.EncodeToString(l.raw), "base64"},
		"meta": map[string]any{
			"err":               l.err,
			"status":            status,
			"fee":               5000,
			"preBalances":       lamports,
			"postBalances":      lamports,
			"preTokenBalances":  balances(l.pre),
			"postTokenBalances": balances(l.post),
			"innerInstructions": []any{},
			"logMessages":       []string{},
			"loadedAddresses":   map[string]any{"writable": []string{}, "readonly": []string{}},
		},
		"version": "legacy",
	}, nil
}
