// Package solanatest is an in-process Solana JSON-RPC node for tests of
// payouts: it serves the few methods package solana calls over loopback
// HTTP, decodes every transaction sent to it, refuses any that is not a
// correct USDC payout from the expected payer (recording why), and records
// each one that lands, once, however often it is sent. Faults are injected
// per send (Drop, Delay, Fail, FailOnChain) and the block height is set by
// the test, which is how blockhashes expire.
//
// The model of the chain is deliberately small: one fork (a held
// transaction's may be dropped: DropFork), a block height
// that moves only when told, a blockhash valid for BlockhashValidity blocks
// after it is handed out, and a landed transaction that is finalized at
// once unless delayed.
package solanatest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	solana "github.com/gagliardetto/solana-go"

	"github.com/gpunex/gpunex/models"
)

// BlockhashValidity is how many blocks after getLatestBlockhash's height a
// blockhash stays valid, as on mainnet (150).
const BlockhashValidity = 150

// StatusCacheBlocks is how many blocks a landed transaction stays in the
// node's recent status cache; older ones are found only with
// searchTransactionHistory.
const StatusCacheBlocks = 300

// USDCMint is the mainnet USDC mint, the default Config.Mint.
var USDCMint = solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")

// Config says what the server expects of every transaction.
type Config struct {
	// Payer is the expected fee payer, transfer authority and owner of
	// the source token account. Required.
	Payer solana.PublicKey
	// Mint is the token that must move; zero means USDCMint.
	Mint solana.PublicKey
	// Decimals must be stated by TransferChecked; zero means 6.
	Decimals uint8
	// BlockHeight is the starting block height; zero means 1,000.
	BlockHeight uint64
	// Now dates the blocks transactions land in (their blockTime); nil
	// means time.Now. A test with a manual clock passes its Now.
	Now func() time.Time
}

// Transfer is one payout that landed without error.
type Transfer struct {
	Signature string
	// Recipient is the wallet paid; Destination its token account.
	Recipient   solana.PublicKey
	Destination solana.PublicKey
	Mint        solana.PublicKey
	Amount      models.USDC
	Memo        string
	Slot        uint64
}

// Rejection is one refused sendTransaction, with the reason.
type Rejection struct {
	// Signature is the first signature, when the bytes decoded that far.
	Signature string
	Reason    string
}

// Account is what getAccountInfo answers for an address.
type Account struct {
	Owner      solana.PublicKey
	Lamports   uint64
	Executable bool
}

// Server is the fake node. Its methods are safe for concurrent use.
type Server struct {
	cfg  Config
	http *httptest.Server

	mu          sync.Mutex
	height      uint64
	hashes      uint64
	blockhashes map[solana.Hash]uint64 // → last valid block height
	txs         map[solana.Signature]*landing
	faults      []queued
	transfers   []Transfer
	rejections  []Rejection
	accounts    map[solana.PublicKey]Account
	calls       map[string]int
	lookups     map[solana.Signature]int // status lookups, by signature

	// What wallets do (wallet.go): the wallets whose transactions are
	// executed, the token accounts they move, and every landed
	// transaction in order, for getSignaturesForAddress.
	wallets map[solana.PublicKey]bool
	tokens  map[solana.PublicKey]*tokenAccount
	landed  []solana.Signature

	// firstAvailable is the oldest slot held (PruneHistory); 0: all.
	firstAvailable uint64
}

// landing is a transaction the server accepted.
type landing struct {
	transfer Transfer
	landed   bool
	height   uint64 // block height it landed at
	pending  int    // status lookups still answered "processed"
	err      any    // on-chain error, nil when it succeeded

	// A wallet's transaction (wallet.go) keeps what getTransaction
	// answers: its bytes, when it landed, its token balances before and
	// after, and whether it is held below finalized (Hold).
	raw       []byte
	keys      []solana.PublicKey
	blockTime int64
	pre, post []tokenBalance
	held      bool
	// moved is how much each token account it changed rose (or fell,
	// negative), for DropFork.
	moved map[solana.PublicKey]int64
}

// PruneHistory makes the node hold blocks from slot on only
// (getFirstAvailableBlock), as a pruned ledger does.
func (s *Server) PruneHistory(slot uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.firstAvailable = slot
}

type fault int

const (
	faultDrop fault = iota + 1
	faultDelay
	faultFail
	faultFailOnChain
	faultHold
)

type queued struct {
	fault
	polls int
}

// New starts a server on loopback and closes it when the test ends.
func New(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a server on loopback for a program that is not a Go test
// (the end-to-end tests' solana-double, internal/e2e/cmd/solana-double);
// Close stops it.
func Start(cfg Config) (*Server, error) {
	if cfg.Payer.IsZero() {
		return nil, errors.New("solanatest: Config.Payer is required")
	}
	if cfg.Mint.IsZero() {
		cfg.Mint = USDCMint
	}
	if cfg.Decimals == 0 {
		cfg.Decimals = 6
	}
	if cfg.BlockHeight == 0 {
		cfg.BlockHeight = 1000
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{
		cfg:         cfg,
		height:      cfg.BlockHeight,
		blockhashes: map[solana.Hash]uint64{},
		txs:         map[solana.Signature]*landing{},
		accounts:    map[solana.PublicKey]Account{},
		calls:       map[string]int{},
		lookups:     map[solana.Signature]int{},
		wallets:     map[solana.PublicKey]bool{},
		tokens:      map[solana.PublicKey]*tokenAccount{},
	}
	s.http = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	return s, nil
}

// Close stops the server (New does it when the test ends).
func (s *Server) Close() { s.http.Close() }

// URL is the server's JSON-RPC endpoint.
func (s *Server) URL() string { return s.http.URL }

// Drop makes the next transaction accepted get its signature back and
// never land. Sending the same bytes again lands it (while valid), as a
// rebroadcast does on a real cluster.
func (s *Server) Drop() { s.enqueue(queued{fault: faultDrop}) }

// Delay makes the next transaction accepted answer "processed" to its
// first polls status lookups, then "finalized".
func (s *Server) Delay(polls int) { s.enqueue(queued{fault: faultDelay, polls: polls}) }

// Confirm ends every Delay now: a transaction still answering
// "processed" answers "finalized" at its next status lookup (a test that
// held a transfer back for as long as it needed lets it land).
func (s *Server) Confirm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.txs {
		l.pending = 0
	}
}

// Held lists the signatures (base58) of the transactions that landed and
// still answer "processed" (a Delay not yet over), in no order.
func (s *Server) Held() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for sig, l := range s.txs {
		if l.landed && l.pending > 0 {
			out = append(out, sig.String())
		}
	}
	return out
}

// Lookups is how many times the status of the transaction signature
// (base58) was asked.
func (s *Server) Lookups(signature string) int {
	sig, err := solana.SignatureFromBase58(signature)
	if err != nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lookups[sig]
}

// Fail makes the next sendTransaction answer a JSON-RPC error (the node is
// unhealthy) without looking at the transaction.
func (s *Server) Fail() { s.enqueue(queued{fault: faultFail}) }

// FailOnChain makes the next transaction accepted land with SPL Token's
// InsufficientFunds in instruction 1 (TransferChecked): nothing moves.
func (s *Server) FailOnChain() { s.enqueue(queued{fault: faultFailOnChain}) }

// enqueue queues a fault. Faults apply in order: Fail to the next send,
// the others to the next send accepted as a new transaction.
func (s *Server) enqueue(q queued) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, q)
}

// BlockHeight returns the current block height.
func (s *Server) BlockHeight() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.height
}

// SetBlockHeight moves the chain to height h (never backwards).
func (s *Server) SetBlockHeight(h uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.height = max(s.height, h)
}

// AdvanceBlocks moves the chain n blocks on.
func (s *Server) AdvanceBlocks(n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.height += n
}

// ExpireBlockhashes moves the chain just past the last valid block height
// of every blockhash handed out so far, so no transaction built on one can
// land any more.
func (s *Server) ExpireBlockhashes() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, last := range s.blockhashes {
		s.height = max(s.height, last+1)
	}
}

// SetAccount makes getAccountInfo answer a for pk; other addresses do not
// exist.
func (s *Server) SetAccount(pk solana.PublicKey, a Account) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accounts[pk] = a
}

// Transfers returns the payouts that landed without error, each once, in
// the order they landed.
func (s *Server) Transfers() []Transfer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.transfers)
}

// Rejections returns the refused sends, in order, with why.
func (s *Server) Rejections() []Rejection {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.rejections)
}

// Calls returns how many times method was called.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}
