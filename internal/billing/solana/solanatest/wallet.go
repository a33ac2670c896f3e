package solanatest

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"

	solana "github.com/gagliardetto/solana-go"
)

// What wallets do on the fake chain: a deposit is a customer's wallet
// paying the platform, not the platform paying out, so the server also
// executes the transactions of wallets a test made (NewWallet, Fund): SPL
// Token transfers between the token accounts it models, associated token
// accounts created on the way, memos and compute-budget instructions
// passed over, anything else failing on chain as the real runtime would
// fail it. Each landed wallet transaction is kept with its bytes and its
// token balances before and after, and is found by every account it
// names (getSignaturesForAddress) and by its signature (getTransaction),
// as a node answers them.

// tokenAccount is one SPL Token account: whose, of what, how much (base
// units).
type tokenAccount struct {
	mint, owner solana.PublicKey
	amount      uint64
}

// tokenBalance is one entry of a transaction's pre- or postTokenBalances.
type tokenBalance struct {
	index       int
	mint, owner solana.PublicKey
	amount      uint64
}

// SPL Token's error numbers, as a failed instruction reports them
// ({"Custom": n}).
const (
	tokenInsufficientFunds = 1
	tokenMintMismatch      = 3
	tokenOwnerMismatch     = 4
	tokenDecimalsMismatch  = 18
)

// Fund adds amount (base units) of mint to wallet's associated token
// account, creating it if needed, and makes wallet's transactions
// executed as a wallet's. Fund(platform, mint, 0) opens the account
// deposits arrive in.
func (s *Server) Fund(wallet, mint solana.PublicKey, amount uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ata, err := associatedTokenAddress(wallet, mint)
	if err != nil {
		panic(fmt.Sprintf("solanatest: fund %s: %v", wallet, err))
	}
	a := s.tokens[ata]
	if a == nil {
		a = &tokenAccount{mint: mint, owner: wallet}
		s.tokens[ata] = a
	}
	a.amount += amount
	s.wallets[wallet] = true
}

// TokenBalance returns what wallet's associated token account for mint
// holds (0 when it does not exist).
func (s *Server) TokenBalance(wallet, mint solana.PublicKey) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ata, err := associatedTokenAddress(wallet, mint)
	if err != nil || s.tokens[ata] == nil {
		return 0
	}
	return s.tokens[ata].amount
}

// Hold makes the next transaction accepted stay at "confirmed":
// getSignaturesForAddress lists it so, and getTransaction at finalized
// does not find it, until Finalize.
func (s *Server) Hold() { s.enqueue(queued{fault: faultHold}) }

// Finalize finalizes a held transaction.
func (s *Server) Finalize(signature string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sig, err := solana.SignatureFromBase58(signature)
	if err != nil {
		panic(fmt.Sprintf("solanatest: finalize %q: %v", signature, err))
	}
	if l := s.txs[sig]; l != nil {
		l.held = false
	}
}

// DropFork drops the fork a held transaction landed on: the transaction
// is on no fork any more (getSignatureStatuses answers null,
// getSignaturesForAddress and getTransaction leave it out) and its token
// movements are undone. It may land again while its blockhash is valid.
func (s *Server) DropFork(signature string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sig, err := solana.SignatureFromBase58(signature)
	if err != nil {
		panic(fmt.Sprintf("solanatest: drop fork %q: %v", signature, err))
	}
	l := s.txs[sig]
	if l == nil || !l.landed || !l.held {
		panic(fmt.Sprintf("solanatest: drop fork %s: not a held transaction (Hold)", signature))
	}
	for pk, delta := range l.moved {
		a := s.tokens[pk]
		if a == nil || (delta > 0 && a.amount < uint64(delta)) {
			panic(fmt.Sprintf("solanatest: drop fork %s: account %s moved since", signature, pk))
		}
		a.amount = uint64(int64(a.amount) - delta)
	}
	l.landed, l.held, l.moved = false, false, nil
	s.landed = slices.DeleteFunc(s.landed, func(id solana.Signature) bool { return id == sig })
	delete(s.txs, sig)
}

// sendWalletTransaction executes b64 if its fee payer is a wallet the
// test made; ok is false for any other transaction (a payout, or one to
// refuse), which sendTransaction checks as a payout.
func (s *Server) sendWalletTransaction(b64 string) (sig string, ok bool, rerr *rpcError) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", false, nil
	}
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil || len(tx.Signatures) == 0 || len(tx.Message.AccountKeys) == 0 || !s.wallets[tx.Message.AccountKeys[0]] {
		return "", false, nil
	}
	sig = tx.Signatures[0].String()
	m := &tx.Message
	if m.IsVersioned() {
		return sig, true, simulationFailed("solanatest: versioned wallet transactions are not modelled", "UnsupportedVersion")
	}
	message, err := m.MarshalBinary()
	if err != nil || !bytes.HasSuffix(raw, message) {
		return sig, true, simulationFailed("solanatest: the message does not re-encode to the bytes signed", "InvalidTransaction")
	}
	if int(m.Header.NumRequiredSignatures) != len(tx.Signatures) || len(m.AccountKeys) < len(tx.Signatures) {
		return sig, true, simulationFailed("solanatest: signatures and signers differ", "InvalidTransaction")
	}
	for i := range tx.Signatures {
		if !ed25519.Verify(ed25519.PublicKey(m.AccountKeys[i][:]), message, tx.Signatures[i][:]) {
			return sig, true, &rpcError{Code: codeSignatureFailure, Message: fmt.Sprintf("Transaction signature verification failure: signature %d by %s", i, m.AccountKeys[i])}
		}
	}
	last, known := s.blockhashes[m.RecentBlockhash]
	if !known || s.height > last {
		return sig, true, simulationFailed("Blockhash not found", "BlockhashNotFound")
	}
	id := tx.Signatures[0]
	if l, seen := s.txs[id]; seen && l.landed {
		return sig, true, simulationFailed("This transaction has already been processed", "AlreadyProcessed")
	}
	ixs, err := resolve(m)
	if err != nil {
		return sig, true, simulationFailed("solanatest: "+err.Error(), "InvalidTransaction")
	}
	var q queued
	if len(s.faults) > 0 {
		q, s.faults = s.faults[0], s.faults[1:]
	}
	l := &landing{transfer: Transfer{Signature: sig}, raw: raw, keys: slices.Clone(m.AccountKeys)}
	s.txs[id] = l
	if q.fault == faultDrop {
		return sig, true, nil
	}
	l.pre = s.tokenBalances(l.keys)
	changes, txErr := s.execute(ixs)
	if q.fault == faultFailOnChain && txErr == nil {
		txErr = instructionError(max(0, slices.IndexFunc(ixs, func(ix instruction) bool { return ix.program == solana.TokenProgramID })), map[string]any{"Custom": tokenInsufficientFunds})
	}
	if txErr == nil {
		l.moved = map[solana.PublicKey]int64{}
		for pk, a := range changes {
			before := uint64(0)
			if old := s.tokens[pk]; old != nil {
				before = old.amount
			}
			l.moved[pk] = int64(a.amount) - int64(before)
			s.tokens[pk] = a
		}
	}
	l.err = txErr
	l.post = s.tokenBalances(l.keys)
	l.landed = true
	l.height = s.height
	l.held = q.fault == faultHold
	l.pending = 0
	if q.fault == faultDelay {
		l.pending = q.polls
	}
	l.blockTime = s.cfg.Now().Unix()
	l.transfer.Slot = s.height + slotsAheadOfBlockHeight
	s.landed = append(s.landed, id)
	return sig, true, nil
}

// instructionError is the on-chain error of instruction i failing with e.
func instructionError(i int, e any) any {
	return map[string]any{"InstructionError": []any{i, e}}
}

// execute runs ixs against a copy of the token accounts they touch and
// returns the accounts changed, or the on-chain error of the first
// instruction that fails (and then nothing changes).
func (s *Server) execute(ixs []instruction) (map[solana.PublicKey]*tokenAccount, any) {
	changed := map[solana.PublicKey]*tokenAccount{}
	get := func(pk solana.PublicKey) *tokenAccount {
		if a, ok := changed[pk]; ok {
			return a
		}
		if a := s.tokens[pk]; a != nil {
			c := *a
			changed[pk] = &c
			return &c
		}
		return nil
	}
	for i, ix := range ixs {
		switch ix.program {
		case solana.MemoProgramID, solana.ComputeBudget:
		case solana.SPLAssociatedTokenAccountProgramID:
			if len(ix.accounts) < 6 || len(ix.data) > 1 || (len(ix.data) == 1 && ix.data[0] > createIdempotentIndex) {
				return nil, instructionError(i, "InvalidInstructionData")
			}
			wallet, mint := ix.accounts[2].key, ix.accounts[3].key
			ata, err := associatedTokenAddress(wallet, mint)
			if err != nil || ata != ix.accounts[1].key {
				return nil, instructionError(i, "InvalidSeeds")
			}
			if get(ata) != nil {
				if len(ix.data) == 0 { // Create, not CreateIdempotent
					return nil, instructionError(i, map[string]any{"Custom": 0})
				}
				continue
			}
			changed[ata] = &tokenAccount{mint: mint, owner: wallet}
		case solana.TokenProgramID:
			if err := transferTokens(ix, get); err != nil {
				return nil, instructionError(i, err)
			}
		default:
			return nil, instructionError(i, "IncorrectProgramId")
		}
	}
	return changed, nil
}

// transferTokens runs SPL Token's Transfer or TransferChecked; any other
// token instruction is not modelled and fails.
func transferTokens(ix instruction, get func(solana.PublicKey) *tokenAccount) any {
	var (
		amount                uint64
		source, dest, auth    account
		mint                  *solana.PublicKey
		decimals, hasDecimals = uint8(0), false
	)
	switch {
	case len(ix.data) == 9 && ix.data[0] == 3 && len(ix.accounts) >= 3: // Transfer
		amount = binary.LittleEndian.Uint64(ix.data[1:9])
		source, dest, auth = ix.accounts[0], ix.accounts[1], ix.accounts[2]
	case len(ix.data) == 10 && ix.data[0] == transferCheckedIndex && len(ix.accounts) >= 4: // TransferChecked
		amount = binary.LittleEndian.Uint64(ix.data[1:9])
		decimals, hasDecimals = ix.data[9], true
		source, dest, auth = ix.accounts[0], ix.accounts[2], ix.accounts[3]
		mint = &ix.accounts[1].key
	default:
		return "InvalidInstructionData"
	}
	from, to := get(source.key), get(dest.key)
	switch {
	case from == nil || to == nil || !source.writable || !dest.writable:
		return "InvalidAccountData"
	case from.mint != to.mint || (mint != nil && *mint != from.mint):
		return map[string]any{"Custom": tokenMintMismatch}
	case hasDecimals && decimals != 6:
		return map[string]any{"Custom": tokenDecimalsMismatch}
	case auth.key != from.owner || !auth.signer:
		return map[string]any{"Custom": tokenOwnerMismatch}
	case amount > from.amount:
		return map[string]any{"Custom": tokenInsufficientFunds}
	}
	from.amount -= amount
	to.amount += amount
	return nil
}

// tokenBalances lists the token accounts among keys with their balances
// now, as a node's pre- and postTokenBalances do.
func (s *Server) tokenBalances(keys []solana.PublicKey) []tokenBalance {
	var out []tokenBalance
	for i, k := range keys {
		if a := s.tokens[k]; a != nil {
			out = append(out, tokenBalance{index: i, mint: a.mint, owner: a.owner, amount: a.amount})
		}
	}
	return out
}

// json renders a token balance as getTransaction's meta does. uiAmount,
// a float on a real node, is left null: nothing here reads it.
func (b tokenBalance) json() map[string]any {
	whole, frac := b.amount/1_000_000, b.amount%1_000_000
	return map[string]any{
		"accountIndex": b.index,
		"mint":         b.mint.String(),
		"owner":        b.owner.String(),
		"programId":    solana.TokenProgramID.String(),
		"uiTokenAmount": map[string]any{
			"amount":         fmt.Sprint(b.amount),
			"decimals":       6,
			"uiAmount":       nil,
			"uiAmountString": fmt.Sprintf("%d.%06d", whole, frac),
		},
	}
}
