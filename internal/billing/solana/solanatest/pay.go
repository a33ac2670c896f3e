package solanatest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	solana "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/gpunex/gpunex/models"
)

// Wallet is a customer's wallet on the fake chain: a key, funded with
// USDC, that pays Solana Pay transfer requests as a wallet app does.
type Wallet struct {
	Key    solana.PrivateKey
	server *Server
	rpc    *rpc.Client
}

// NewWallet makes a wallet holding usdc of the server's mint.
func (s *Server) NewWallet(t testing.TB, usdc models.USDC) *Wallet {
	t.Helper()
	w, err := s.OpenWallet(usdc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// OpenWallet is NewWallet for a program that is not a Go test; Close
// releases its connection to the server.
func (s *Server) OpenWallet(usdc models.USDC) (*Wallet, error) {
	key, err := solana.NewRandomPrivateKey()
	if err != nil {
		return nil, err
	}
	s.Fund(key.PublicKey(), s.cfg.Mint, uint64(usdc))
	return &Wallet{Key: key, server: s, rpc: rpc.New(s.URL())}, nil
}

// Close releases the wallet's connection to the server.
func (w *Wallet) Close() { _ = w.rpc.Close() }

// Address is the wallet's public key.
func (w *Wallet) Address() solana.PublicKey { return w.Key.PublicKey() }

// PayOption changes what Pay does, to make the transfers a request must
// not be credited for (or credited otherwise than asked).
type PayOption func(*payment)

// payment is a transfer as Pay builds it.
type payment struct {
	recipient  solana.PublicKey
	mint       solana.PublicKey
	amount     uint64
	hasAmount  bool
	references []solana.PublicKey
	memo       string
	// to, when set, is the token account credited instead of the
	// recipient's (a transfer that names the reference but pays someone
	// else).
	to *solana.PublicKey
}

// PayAmount pays amount whatever the request asks (the wallet's user
// typed another amount, or the request has none).
func PayAmount(amount models.USDC) PayOption {
	return func(p *payment) { p.amount, p.hasAmount = uint64(amount), true }
}

// PayMint moves mint instead of the request's token (the wallet must hold
// it: Fund).
func PayMint(mint solana.PublicKey) PayOption { return func(p *payment) { p.mint = mint } }

// PayTo sends the tokens to wallet's associated token account instead of
// the request's recipient, keeping the request's reference: a forged
// answer to the request.
func PayTo(wallet solana.PublicKey) PayOption {
	return func(p *payment) {
		ata, err := associatedTokenAddress(wallet, p.mint)
		if err != nil {
			panic(err)
		}
		p.to = &ata
	}
}

// Transaction builds and signs the transaction a wallet makes for the
// Solana Pay transfer request link (solana:<recipient>?amount=…&
// spl-token=…&reference=…&label=…&message=…&memo=…), as the spec and
// @solana/pay's createTransfer do: TransferChecked of the amount (a
// decimal in the token's units, here 6 decimals) from the wallet's
// associated token account to the recipient's, each reference appended
// to its accounts read-only and unsigned, a Memo instruction before it
// when the link has a memo, the wallet paying the fee; on a recent
// blockhash from the server. Nothing is sent.
func (w *Wallet) Transaction(ctx context.Context, link string, opts ...PayOption) ([]byte, error) {
	p, err := parseTransferRequest(link)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(&p)
	}
	if !p.hasAmount {
		return nil, errors.New("the request has no amount: give one (PayAmount)")
	}
	sender := w.Key.PublicKey()
	source, err := associatedTokenAddress(sender, p.mint)
	if err != nil {
		return nil, err
	}
	destination, err := associatedTokenAddress(p.recipient, p.mint)
	if err != nil {
		return nil, err
	}
	if p.to != nil {
		destination = *p.to
	}
	move, err := token.NewTransferCheckedInstruction(p.amount, 6, source, p.mint, destination, sender, nil).ValidateAndBuild()
	if err != nil {
		return nil, err
	}
	data, err := move.Data()
	if err != nil {
		return nil, err
	}
	accounts := move.Accounts()
	for _, ref := range p.references {
		accounts = append(accounts, solana.Meta(ref))
	}
	transfer := solana.NewInstruction(solana.TokenProgramID, accounts, data)
	var ixs []solana.Instruction
	if p.memo != "" {
		ixs = append(ixs, solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(sender).SIGNER()}, []byte(p.memo)))
	}
	ixs = append(ixs, transfer)
	latest, err := w.rpc.GetLatestBlockhash(ctx, rpc.CommitmentFinalized)
	if err != nil {
		return nil, err
	}
	tx, err := solana.NewTransaction(ixs, latest.Value.Blockhash, solana.TransactionPayer(sender))
	if err != nil {
		return nil, err
	}
	if _, err := tx.Sign(func(pk solana.PublicKey) *solana.PrivateKey {
		if pk == sender {
			return &w.Key
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return tx.MarshalBinary()
}

// Pay builds the transaction for link (Transaction) and sends it to the
// server as a wallet does (sendTransaction), returning its signature.
func (w *Wallet) Pay(ctx context.Context, link string, opts ...PayOption) (string, error) {
	raw, err := w.Transaction(ctx, link, opts...)
	if err != nil {
		return "", err
	}
	sig, err := w.rpc.SendRawTransaction(ctx, raw)
	if err != nil {
		return "", err
	}
	return sig.String(), nil
}

// parseTransferRequest reads a Solana Pay transfer request link.
func parseTransferRequest(link string) (payment, error) {
	var p payment
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "solana" || u.Opaque == "" {
		return p, fmt.Errorf("%q is not a solana: transfer request", link)
	}
	if p.recipient, err = solana.PublicKeyFromBase58(u.Opaque); err != nil {
		return p, fmt.Errorf("recipient %q: %w", u.Opaque, err)
	}
	q := u.Query()
	mint := q.Get("spl-token")
	if mint == "" {
		return p, errors.New("no spl-token: a SOL transfer, which this wallet does not make")
	}
	if p.mint, err = solana.PublicKeyFromBase58(mint); err != nil {
		return p, fmt.Errorf("spl-token %q: %w", mint, err)
	}
	if a := q.Get("amount"); a != "" {
		if p.amount, err = parseUnits(a, 6); err != nil {
			return p, fmt.Errorf("amount %q: %w", a, err)
		}
		p.hasAmount = true
	}
	for _, r := range q["reference"] {
		ref, err := solana.PublicKeyFromBase58(r)
		if err != nil {
			return p, fmt.Errorf("reference %q: %w", r, err)
		}
		p.references = append(p.references, ref)
	}
	p.memo = q.Get("memo")
	return p, nil
}

// parseUnits reads a non-negative decimal of at most decimals places
// into base units, as the spec asks a wallet to (no exponent, no sign).
func parseUnits(s string, decimals int) (uint64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > decimals || strings.ContainsAny(s, "+-eE ") {
		return 0, fmt.Errorf("not a decimal with at most %d places", decimals)
	}
	frac += strings.Repeat("0", decimals-len(frac))
	n, err := strconv.ParseUint(whole+frac, 10, 64)
	if err != nil {
		return 0, err
	}
	return n, nil
}
