package deposit

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Chain is what deposits ask of Solana; *solana.Client is one.
type Chain interface {
	// Payer is the platform's wallet: the recipient of every request.
	Payer() solana.PublicKey
	// Mint is the token deposited (USDC).
	Mint() solana.PublicKey
	// Mentions lists the transactions naming an address, newest first.
	Mentions(ctx context.Context, address solana.PublicKey) ([]solana.Mention, error)
	// Receipt reads a finalized transaction (solana.ErrNotFinal until
	// then).
	Receipt(ctx context.Context, signature string) (*solana.Receipt, error)
	// Status is where a transaction stands, searching the node's whole
	// history (NotFound: on no fork the node knows).
	Status(ctx context.Context, signature string) (solana.Status, error)
	// FinalizedSlot is the slot of the latest finalized block.
	FinalizedSlot(ctx context.Context) (uint64, error)
	// FirstAvailableSlot is the oldest slot the node holds the block of.
	FirstAvailableSlot(ctx context.Context) (uint64, error)
}

var _ Chain = (*solana.Client)(nil)

// Deps are what deposits use.
type Deps struct {
	DB     *store.DB
	Bus    bus.Bus
	Notify *notification.Service
	// Billing credits what arrived to the customer's funds.
	Billing *billing.Service
	// Chain is the Solana node; nil: deposits are unavailable (no
	// --solana-rpc-url), and customers are told to ask for a bank
	// transfer.
	Chain  Chain
	Clock  clock.Clock
	Logger *slog.Logger
}

// Config tunes deposits. Zero values take the defaults.
type Config struct {
	// FollowEvery is how often the leading replica asks the chain about
	// open requests (default 15s).
	FollowEvery time.Duration
	// Expiry is how long a request is open (default 30m).
	Expiry time.Duration
	// LateFor is how long after its expiry a request is still followed,
	// so a late transfer is still credited (default 24h).
	LateFor time.Duration
	// Label is the name wallets show as the recipient (default GPUnex).
	Label string
	// ExplorerURL and ExplorerCluster link a transfer's transaction
	// (default https://explorer.solana.com/tx/, mainnet).
	ExplorerURL     string
	ExplorerCluster string
}

// The bounds an operator may set (gpunex serve).
const (
	MinFollowEvery = time.Second
	MaxFollowEvery = 10 * time.Minute
	MinExpiry      = time.Minute
	MaxExpiry      = 7 * 24 * time.Hour
	MaxLateFor     = 30 * 24 * time.Hour
)

// MinAmount is the least amount a request may ask: one cent.
const MinAmount = models.USDC(10_000)

// MaxOpen bounds a customer's requests that are waiting at once.
const MaxOpen = 20

// Validate checks what an operator may set: the follow-up from once a
// second to once every ten minutes, a request open from a minute to a
// week, followed at most 30 days after.
func (c Config) Validate() error {
	if c.FollowEvery < MinFollowEvery || c.FollowEvery > MaxFollowEvery {
		return fmt.Errorf("deposits are followed every %s to %s; got %s", MinFollowEvery, MaxFollowEvery, c.FollowEvery)
	}
	if c.Expiry < MinExpiry || c.Expiry > MaxExpiry {
		return fmt.Errorf("a deposit request is open from %s to %s; got %s", MinExpiry, MaxExpiry, c.Expiry)
	}
	if c.LateFor < 0 || c.LateFor > MaxLateFor {
		return fmt.Errorf("a deposit request is followed at most %s after it expires; got %s", MaxLateFor, c.LateFor)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.FollowEvery <= 0 {
		c.FollowEvery = 15 * time.Second
	}
	if c.Expiry <= 0 {
		c.Expiry = 30 * time.Minute
	}
	if c.LateFor <= 0 {
		c.LateFor = 24 * time.Hour
	}
	if c.Label == "" {
		c.Label = "GPUnex"
	}
	if c.ExplorerURL == "" {
		c.ExplorerURL = "https://explorer.solana.com/tx/"
	}
	return c
}

// Service makes deposit requests, follows them on chain and credits what
// arrives.
type Service struct {
	deps Deps
	cfg  Config
	live *bus.Shared[*models.Deposit]
	// wallet, mint and account are where deposits land: the platform's
	// wallet, the token, and the wallet's token account for it.
	wallet, mint, account solana.PublicKey
	// afterSee, when set (tests), runs between See and Settle in Run.
	afterSee func(context.Context) error
}

// New returns the deposit service.
func New(deps Deps, cfg Config) (*Service, error) {
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Clock == nil {
		deps.Clock = clock.Real{}
	}
	s := &Service{deps: deps, cfg: cfg.withDefaults()}
	s.live = bus.NewShared(deps.Bus, deps.Logger, s.resolveEvent)
	if deps.Chain != nil {
		s.wallet, s.mint = deps.Chain.Payer(), deps.Chain.Mint()
		ata, err := solana.AssociatedTokenAddress(s.wallet, s.mint)
		if err != nil {
			return nil, fmt.Errorf("deposit: the platform's token account: %w", err)
		}
		s.account = ata
	}
	return s, nil
}

// Config returns the configuration in effect.
func (s *Service) Config() Config { return s.cfg }

// Terms are what a customer may ask: whether deposits are available, the
// least and most one request may ask, and how long it stays open.
type Terms struct {
	Available        bool
	Minimum, Maximum models.USDC
	Expiry           time.Duration
}

// Terms returns the terms in force.
func (s *Service) Terms() Terms {
	return Terms{Available: s.deps.Chain != nil, Minimum: MinAmount, Maximum: billing.MaxCredit, Expiry: s.cfg.Expiry}
}

// Create makes a deposit request for userID, of amount (nil: an open
// amount). Problems come back as a *fault.Validation: deposits
// unavailable (UNAVAILABLE on input), an amount out of bounds
// (OUT_OF_RANGE on input.amount), too many requests waiting (TOO_MANY on
// input).
func (s *Service) Create(ctx context.Context, userID int64, amount *models.USDC) (*models.Deposit, error) {
	var v fault.Validation
	if s.deps.Chain == nil {
		v.Add("input", fault.Unavailable, "deposits in USDC on Solana are not available on this server; ask us for a bank transfer")
		return nil, &v
	}
	if amount != nil && (*amount < MinAmount || *amount > billing.MaxCredit) {
		v.Add("input.amount", fault.OutOfRange, fmt.Sprintf("a deposit is from %s to %s USDC, or leave the amount open", MinAmount, billing.MaxCredit))
		return nil, &v
	}
	now := s.deps.Clock.Now()
	open, err := s.deps.DB.NewSelect().Model((*models.Deposit)(nil)).
		Where("user_id = ? AND state = ? AND expires_at > ?", userID, models.DepositWaiting, now).Count(ctx)
	if err != nil {
		return nil, fmt.Errorf("deposit: unable to count open requests: %w", err)
	}
	if open >= MaxOpen {
		v.Add("input", fault.TooMany, fmt.Sprintf("you have %d deposit requests waiting; pay or let one expire first", open))
		return nil, &v
	}
	ref, err := solana.NewReference()
	if err != nil {
		return nil, err
	}
	d := &models.Deposit{
		UserID: userID, Reference: ref.String(), Amount: amount, State: models.DepositWaiting,
		CreatedAt: now, ExpiresAt: now.Add(s.cfg.Expiry), FollowUntil: now.Add(s.cfg.Expiry + s.cfg.LateFor), UpdatedAt: now,
		Transfers: []*models.DepositTransfer{},
	}
	if _, err := s.deps.DB.NewInsert().Model(d).Returning("id").Exec(ctx); err != nil {
		return nil, fmt.Errorf("deposit: unable to store the request: %w", err)
	}
	s.announce(ctx, d.UserID, d.ID)
	return d, nil
}

// MaxList bounds one list of requests.
const MaxList = 100

// List returns userID's latest first requests (at most MaxList), newest
// first, each with its transfers.
func (s *Service) List(ctx context.Context, userID int64, first int) ([]*models.Deposit, error) {
	first = min(max(first, 1), MaxList)
	var ds []*models.Deposit
	err := s.deps.DB.NewSelect().Model(&ds).Relation("Transfers", orderTransfers).
		Where("d.user_id = ?", userID).Order("d.id DESC").Limit(int64(first)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("deposit: unable to list requests: %w", err)
	}
	return ds, nil
}

// Get returns userID's request id with its transfers (NOT_FOUND when it
// is not theirs).
func (s *Service) Get(ctx context.Context, userID, id int64) (*models.Deposit, error) {
	d, err := s.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if d == nil || d.UserID != userID {
		return nil, fault.E(fault.NotFound, "no such deposit")
	}
	return d, nil
}

// load reads request id with its transfers (nil when there is none).
func (s *Service) load(ctx context.Context, id int64) (*models.Deposit, error) {
	d := new(models.Deposit)
	err := s.deps.DB.NewSelect().Model(d).Relation("Transfers", orderTransfers).Where("d.id = ?", id).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("deposit: unable to read request %d: %w", id, err)
	}
	return d, nil
}

func orderTransfers(q *bun.SelectQuery) *bun.SelectQuery { return q.Order("dt.id ASC") }

// Payment is how to pay d: its Solana Pay transfer request link and the
// parts of it. The amount is in USDC with no trailing zeros, the label
// and message percent-encoded (spaces as %20), as the spec asks.
func (s *Service) Payment(d *models.Deposit) *models.DepositPayment {
	p := &models.DepositPayment{Recipient: s.wallet.String(), Mint: s.mint.String(), Amount: d.Amount,
		Reference: d.Reference, Label: s.cfg.Label, Message: fmt.Sprintf("%s deposit %d", s.cfg.Label, d.ID)}
	var b strings.Builder
	b.WriteString("solana:" + p.Recipient + "?")
	if d.Amount != nil {
		b.WriteString("amount=" + uiAmount(*d.Amount) + "&")
	}
	b.WriteString("spl-token=" + p.Mint + "&reference=" + p.Reference + "&label=" + escape(p.Label) + "&message=" + escape(p.Message))
	p.URL = b.String()
	return p
}

// uiAmount writes a USDC amount in USDC with no trailing zeros ("25.5",
// "3").
func uiAmount(a models.USDC) string {
	s := strings.TrimRight(a.String(), "0")
	return strings.TrimSuffix(s, ".")
}

func escape(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

// ExplorerURL links a transfer's transaction on the explorer.
func (s *Service) ExplorerURL(t *models.DepositTransfer) string {
	u := s.cfg.ExplorerURL + t.Signature
	if s.cfg.ExplorerCluster != "" {
		u += "?cluster=" + s.cfg.ExplorerCluster
	}
	return u
}

// RunBackground runs the follow-up every FollowEvery on the replica that
// leads the "deposit-follow" lease, until ctx ends. Without a chain there
// is nothing to follow.
func (s *Service) RunBackground(ctx context.Context) {
	if s.deps.Chain == nil {
		return
	}
	s.deps.DB.Periodic(ctx, "deposit-follow", s.cfg.FollowEvery, s.deps.Logger, "deposit: follow-up", s.Run)
}
