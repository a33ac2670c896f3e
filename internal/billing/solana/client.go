package solana

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
)

// Config configures a Client. Only RPCURL and Payer are required.
type Config struct {
	// RPCURL is the JSON-RPC endpoint of a Solana node (http or https).
	RPCURL string
	// Payer signs and pays every payout and owns the USDC paid out.
	Payer Key
	// Mint is the token paid; zero means USDCMint (mainnet). It must be
	// a mint of the SPL Token program, as USDC is, not of Token-2022.
	Mint PublicKey
	// Decimals is the mint's; zero means USDCDecimals. TransferChecked
	// states it, so the chain refuses a payout if it is wrong.
	Decimals uint8
	// Commitment is the level at which a payout counts as Confirmed:
	// rpc.CommitmentConfirmed (the default) or rpc.CommitmentFinalized.
	Commitment rpc.CommitmentType
	// PollInterval is WaitConfirmed's pause between looks; zero means
	// DefaultPollInterval.
	PollInterval time.Duration
	// Logger receives one line per send; nil discards. The key never
	// appears in it.
	Logger *slog.Logger
}

// DefaultPollInterval is WaitConfirmed's pause between status looks: about
// one slot.
const DefaultPollInterval = 500 * time.Millisecond

// Client pays USDC from the platform's wallet. It is safe for concurrent
// use; it keeps no state of its own between calls, so everything a crash
// could lose is in the Prepared the caller stores.
type Client struct {
	rpc        *rpc.Client
	payer      Key
	mint       PublicKey
	decimals   uint8
	commitment rpc.CommitmentType
	poll       time.Duration
	log        *slog.Logger
}

// New returns a Client for cfg. It does not contact the node.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.RPCURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("solana: RPC URL %q is not an http(s) URL", cfg.RPCURL)
	}
	if cfg.Payer.IsZero() {
		return nil, errors.New("solana: no payer key")
	}
	c := &Client{
		rpc:        rpc.New(cfg.RPCURL),
		payer:      cfg.Payer,
		mint:       cfg.Mint,
		decimals:   cfg.Decimals,
		commitment: cfg.Commitment,
		poll:       cfg.PollInterval,
		log:        cfg.Logger,
	}
	if c.mint.IsZero() {
		c.mint = USDCMint
	}
	if c.decimals == 0 {
		c.decimals = USDCDecimals
	}
	switch c.commitment {
	case "":
		c.commitment = rpc.CommitmentConfirmed
	case rpc.CommitmentConfirmed, rpc.CommitmentFinalized:
	default:
		return nil, fmt.Errorf("solana: commitment %q: want %q or %q", cfg.Commitment, rpc.CommitmentConfirmed, rpc.CommitmentFinalized)
	}
	if c.poll <= 0 {
		c.poll = DefaultPollInterval
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// Close releases the node connection's idle sockets.
func (c *Client) Close() error { return c.rpc.Close() }

// Payer returns the payer's address.
func (c *Client) Payer() PublicKey { return c.payer.PublicKey() }

// Mint returns the mint paid.
func (c *Client) Mint() PublicKey { return c.mint }

// CheckWallet is what the API calls when a provider saves a payout
// address: ParseWallet against the Client's mint, then
// CheckNotTokenAccount on the node.
func (c *Client) CheckWallet(ctx context.Context, s string) (PublicKey, error) {
	pk, err := ParseWallet(s, c.mint)
	if err != nil {
		return PublicKey{}, err
	}
	if err := CheckNotTokenAccount(ctx, c.rpc, pk); err != nil {
		return PublicKey{}, err
	}
	return pk, nil
}
