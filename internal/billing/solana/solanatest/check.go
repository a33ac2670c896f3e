package solanatest

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	solana "github.com/gagliardetto/solana-go"

	"github.com/gpunex/gpunex/models"
)

// The instruction bytes the server expects, written out here rather than
// taken from package solana, so a mistake there is not repeated here.
const (
	createIdempotentIndex = 1  // associated-token-account: CreateIdempotent
	transferCheckedIndex  = 12 // SPL Token: TransferChecked
)

// check decodes raw and returns the transfer it makes, or why it is not a
// correct payout. A signature problem is an *rpcError with the node's code
// for it; other refusals are plain errors.
func (s *Server) check(raw []byte) (*solana.Transaction, Transfer, error) {
	n, width := shortVec(raw)
	if width == 0 || n == 0 || len(raw) < width+64*n {
		return nil, Transfer{}, errors.New("undecodable transaction: no signatures")
	}
	message := raw[width+64*n:]
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		return nil, Transfer{}, fmt.Errorf("undecodable transaction: %w", err)
	}
	m := &tx.Message
	if m.IsVersioned() {
		return tx, Transfer{}, errors.New("versioned transaction; a payout is a legacy one")
	}
	if again, err := m.MarshalBinary(); err != nil || !bytes.Equal(again, message) {
		return tx, Transfer{}, errors.New("the message does not re-encode to the bytes signed (trailing or malformed bytes)")
	}
	if int(m.Header.NumRequiredSignatures) != n || len(m.AccountKeys) < n {
		return tx, Transfer{}, fmt.Errorf("%d signatures for %d required signers", n, m.Header.NumRequiredSignatures)
	}
	for i := range n {
		if !ed25519.Verify(ed25519.PublicKey(m.AccountKeys[i][:]), message, tx.Signatures[i][:]) {
			return tx, Transfer{}, &rpcError{Code: codeSignatureFailure, Message: fmt.Sprintf("Transaction signature verification failure: signature %d by %s", i, m.AccountKeys[i])}
		}
	}
	if m.AccountKeys[0] != s.cfg.Payer {
		return tx, Transfer{}, fmt.Errorf("fee payer %s, want the payer %s", m.AccountKeys[0], s.cfg.Payer)
	}
	ixs, err := resolve(m)
	if err != nil {
		return tx, Transfer{}, err
	}
	programs := make([]solana.PublicKey, len(ixs))
	for i, ix := range ixs {
		programs[i] = ix.program
	}
	want := []solana.PublicKey{solana.SPLAssociatedTokenAccountProgramID, solana.TokenProgramID}
	if len(ixs) == 3 {
		want = append(want, solana.MemoProgramID)
	}
	if len(ixs) < 2 || len(ixs) > 3 || !slices.Equal(programs, want) {
		return tx, Transfer{}, fmt.Errorf("programs %v, want [associated-token-account, token(, memo)]", programs)
	}
	wallet, destination, err := s.checkCreate(ixs[0])
	if err != nil {
		return tx, Transfer{}, fmt.Errorf("instruction 0: %w", err)
	}
	amount, err := s.checkTransfer(ixs[1], destination)
	if err != nil {
		return tx, Transfer{}, fmt.Errorf("instruction 1: %w", err)
	}
	tr := Transfer{Recipient: wallet, Destination: destination, Mint: s.cfg.Mint, Amount: amount}
	if len(ixs) == 3 {
		if tr.Memo, err = checkMemo(ixs[2]); err != nil {
			return tx, Transfer{}, fmt.Errorf("instruction 2: %w", err)
		}
	}
	return tx, tr, nil
}

// instruction is a compiled instruction with its accounts resolved.
type instruction struct {
	program  solana.PublicKey
	accounts []account
	data     []byte
}

type account struct {
	key              solana.PublicKey
	signer, writable bool
}

// resolve looks up every index of every instruction, refusing one out of
// range (solana-go's own resolver would panic on it).
func resolve(m *solana.Message) ([]instruction, error) {
	metas, err := m.AccountMetaList()
	if err != nil {
		return nil, fmt.Errorf("account metas: %w", err)
	}
	out := make([]instruction, len(m.Instructions))
	for i, ci := range m.Instructions {
		if int(ci.ProgramIDIndex) >= len(metas) {
			return nil, fmt.Errorf("instruction %d: program index %d out of range", i, ci.ProgramIDIndex)
		}
		out[i] = instruction{program: metas[ci.ProgramIDIndex].PublicKey, data: ci.Data}
		for _, idx := range ci.Accounts {
			if int(idx) >= len(metas) {
				return nil, fmt.Errorf("instruction %d: account index %d out of range", i, idx)
			}
			meta := metas[idx]
			out[i].accounts = append(out[i].accounts, account{key: meta.PublicKey, signer: meta.IsSigner, writable: meta.IsWritable})
		}
	}
	return out, nil
}

// checkCreate checks the associated-token-account instruction and returns
// the wallet it is for and that wallet's token account.
func (s *Server) checkCreate(ix instruction) (wallet, ata solana.PublicKey, err error) {
	if !bytes.Equal(ix.data, []byte{createIdempotentIndex}) {
		return wallet, ata, fmt.Errorf("associated-token-account data %x, want CreateIdempotent (01)", ix.data)
	}
	if len(ix.accounts) != 6 {
		return wallet, ata, fmt.Errorf("CreateIdempotent has %d accounts, want 6", len(ix.accounts))
	}
	a := ix.accounts
	if a[0].key != s.cfg.Payer || !a[0].signer || !a[0].writable {
		return wallet, ata, fmt.Errorf("CreateIdempotent's funding account %s (signer %t, writable %t), want the payer, signing and writable", a[0].key, a[0].signer, a[0].writable)
	}
	wallet = a[2].key
	if !wallet.IsOnCurve() {
		return wallet, ata, fmt.Errorf("CreateIdempotent's wallet %s is off the curve, not a wallet", wallet)
	}
	if a[3].key != s.cfg.Mint {
		return wallet, ata, fmt.Errorf("CreateIdempotent's mint %s, want %s", a[3].key, s.cfg.Mint)
	}
	if a[4].key != solana.SystemProgramID || a[5].key != solana.TokenProgramID {
		return wallet, ata, fmt.Errorf("CreateIdempotent's programs %s and %s, want System and SPL Token", a[4].key, a[5].key)
	}
	ata, err = associatedTokenAddress(wallet, s.cfg.Mint)
	if err != nil {
		return wallet, ata, err
	}
	if a[1].key != ata || !a[1].writable {
		return wallet, ata, fmt.Errorf("CreateIdempotent's account %s (writable %t), want %s, the wallet's associated token account, writable", a[1].key, a[1].writable, ata)
	}
	return wallet, ata, nil
}

// checkTransfer checks TransferChecked and returns its amount.
func (s *Server) checkTransfer(ix instruction, destination solana.PublicKey) (models.USDC, error) {
	if len(ix.data) != 10 || ix.data[0] != transferCheckedIndex {
		return 0, fmt.Errorf("token instruction data %x, want TransferChecked (12, amount, decimals)", ix.data)
	}
	amount := binary.LittleEndian.Uint64(ix.data[1:9])
	decimals := ix.data[9]
	if decimals != s.cfg.Decimals {
		return 0, fmt.Errorf("TransferChecked states %d decimals, want %d", decimals, s.cfg.Decimals)
	}
	if amount == 0 || amount > math.MaxInt64 {
		return 0, fmt.Errorf("TransferChecked amount %d out of range", amount)
	}
	if len(ix.accounts) != 4 {
		return 0, fmt.Errorf("TransferChecked has %d accounts, want 4 (no multisig)", len(ix.accounts))
	}
	a := ix.accounts
	source, err := associatedTokenAddress(s.cfg.Payer, s.cfg.Mint)
	if err != nil {
		return 0, err
	}
	switch {
	case a[0].key != source || !a[0].writable:
		return 0, fmt.Errorf("TransferChecked's source %s, want the payer's token account %s, writable", a[0].key, source)
	case a[1].key != s.cfg.Mint:
		return 0, fmt.Errorf("TransferChecked's mint %s, want %s", a[1].key, s.cfg.Mint)
	case a[2].key != destination || !a[2].writable:
		return 0, fmt.Errorf("TransferChecked's destination %s, want %s, the recipient's associated token account, writable", a[2].key, destination)
	case a[3].key != s.cfg.Payer || !a[3].signer:
		return 0, fmt.Errorf("TransferChecked's authority %s (signer %t), want the payer, signing", a[3].key, a[3].signer)
	}
	return models.USDC(amount), nil
}

// checkMemo checks the Memo instruction: UTF-8 text, every account a
// signer (the Memo program's own rules).
func checkMemo(ix instruction) (string, error) {
	if !utf8.Valid(ix.data) {
		return "", errors.New("memo is not UTF-8")
	}
	for _, a := range ix.accounts {
		if !a.signer {
			return "", fmt.Errorf("memo account %s does not sign", a.key)
		}
	}
	return string(ix.data), nil
}

// associatedTokenAddress derives wallet's token account for mint under SPL
// Token: the program address of (wallet, token program, mint).
func associatedTokenAddress(wallet, mint solana.PublicKey) (solana.PublicKey, error) {
	ata, _, err := solana.FindProgramAddress(
		[][]byte{wallet[:], solana.TokenProgramID[:], mint[:]},
		solana.SPLAssociatedTokenAccountProgramID,
	)
	return ata, err
}

// shortVec reads Solana's compact-u16 length prefix: the value and how
// many bytes it took (0 if malformed).
func shortVec(b []byte) (n, width int) {
	for i := 0; i < 3 && i < len(b); i++ {
		n |= int(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return n, i + 1
		}
	}
	return 0, 0
}
