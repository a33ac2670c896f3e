package billing

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

func isNoRows(err error) bool { return store.IsNoRows(err) }

// MaxCredit bounds one credit of a customer's funds: 1,000,000 USDC.
const MaxCredit = models.USDC(1_000_000 * models.MicrosPerUSDC)

// Credit adds amount to a customer's prepaid balance, from outside (a
// deposit the admin confirms, with its reference: a transfer's id). A
// reference is used once: crediting it again is refused (DUPLICATE), so a
// retried request never credits twice. Problems come back as a
// *fault.Validation naming input fields; nothing changes then.
func (s *Service) Credit(ctx context.Context, userID int64, amount models.USDC, reference string) (models.USDC, error) {
	var v fault.Validation
	reference = strings.TrimSpace(reference)
	switch {
	case amount <= 0:
		v.Add("input.amount", fault.OutOfRange, "the amount must be more than 0")
	case amount > MaxCredit:
		v.Add("input.amount", fault.OutOfRange, fmt.Sprintf("one credit may be at most %s USDC", MaxCredit))
	}
	switch {
	case reference == "":
		v.Add("input.reference", fault.Required, "give the deposit's reference (the transfer's id)")
	case len(reference) > 200:
		v.Add("input.reference", fault.TooLong, "at most 200 characters")
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	n, err := s.deps.DB.NewSelect().Model((*models.User)(nil)).Where("id = ?", userID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("billing: unable to find the customer: %w", err)
	}
	if n == 0 {
		return 0, fault.E(fault.NotFound, "no such user")
	}
	var balance models.USDC
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		dup, err := tx.NewSelect().Model((*models.LedgerTransaction)(nil)).Where("kind = ? AND reference = ?", models.TxDeposit, reference).Count(ctx)
		if err != nil {
			return err
		}
		if dup > 0 {
			v.Add("input.reference", fault.Duplicate, "this reference was credited already")
			return &v
		}
		now := s.deps.Clock.Now()
		if err := post(ctx, tx, now, []*posting{{
			tx: &models.LedgerTransaction{Kind: models.TxDeposit, Reference: reference},
			legs: []leg{
				{accountKey{models.AccountDeposits, 0}, -amount},
				{accountKey{models.AccountCustomerFunds, userID}, amount},
			},
		}}); err != nil {
			return err
		}
		balance, err = s.balance(ctx, tx, models.AccountCustomerFunds, userID)
		return err
	})
	if err != nil {
		if _, ok := fault.AsValidation(err); ok {
			return 0, err
		}
		return 0, fmt.Errorf("billing: unable to credit funds: %w", err)
	}
	return balance, nil
}

// Funds is a customer's prepaid balance and what it means.
type Funds struct {
	Balance models.USDC
	// PerHour is what the customer's running rentals cost per hour now.
	PerHour models.USDC
	// RunsOutAt is when the balance runs out at that rate (nil: nothing
	// runs).
	RunsOutAt *time.Time
}

// FundsOf is a customer's balance and burn rate.
func (s *Service) FundsOf(ctx context.Context, userID int64) (*Funds, error) {
	b, err := s.balance(ctx, s.deps.DB, models.AccountCustomerFunds, userID)
	if err != nil {
		return nil, err
	}
	var rate int64
	if err := s.deps.DB.NewSelect().Model((*models.Rental)(nil)).ColumnExpr("COALESCE(SUM(price_micros * gpu_count), 0)").
		Where("customer_id = ? AND state IN (?)", userID, bun.List(activeStates)).Scan(ctx, &rate); err != nil {
		return nil, fmt.Errorf("billing: unable to read the customer's rentals: %w", err)
	}
	f := &Funds{Balance: b, PerHour: models.USDC(rate)}
	if rate > 0 {
		at := runsOut(s.deps.Clock.Now(), b, models.USDC(rate))
		f.RunsOutAt = &at
	}
	return f, nil
}

// runsOut is when balance runs out at perHour (> 0) from now: the whole
// seconds it lasts, balance × 3600 ÷ perHour, in big arithmetic (micro-USDC
// times nanoseconds per hour overflows int64 above about 2.56 USDC, which
// once put the run-out time in the past). A balance that lasts longer than
// a time.Duration holds (about 292 years) is said to run out then.
func runsOut(now time.Time, balance, perHour models.USDC) time.Time {
	secs := new(big.Int).Mul(big.NewInt(int64(balance)), big.NewInt(3600))
	secs.Quo(secs, big.NewInt(int64(perHour)))
	const most = math.MaxInt64 / int64(time.Second)
	if !secs.IsInt64() || secs.Int64() > most {
		return now.Add(time.Duration(most) * time.Second)
	}
	return now.Add(time.Duration(secs.Int64()) * time.Second)
}

// Reserve is the market's check as a rental starts, run inside the
// transaction that allocates its GPUs (tx): the customer's balance, less
// the prepaid period (Config.MinPrepaid) of every rental the customer
// already runs, must pay perHour for that period too, or the start is
// refused with INSUFFICIENT_FUNDS on field. The customer's starts are
// serialised (a row lock on the user on PostgreSQL; SQLite's BEGIN
// IMMEDIATE already does it), so concurrent starts cannot each count the
// same balance: a rental, once started, holds its prepaid period.
func (s *Service) Reserve(ctx context.Context, tx bun.IDB, customerID int64, perHour models.USDC, field string) error {
	var ids []int64
	if err := s.deps.DB.ForUpdate(tx.NewSelect().TableExpr("users").ColumnExpr("id").Where("id = ?", customerID)).Scan(ctx, &ids); err != nil {
		return fmt.Errorf("billing: unable to lock the customer: %w", err)
	}
	b, err := s.balance(ctx, tx, models.AccountCustomerFunds, customerID)
	if err != nil {
		return err
	}
	var running int64
	if err := tx.NewSelect().Model((*models.Rental)(nil)).ColumnExpr("COALESCE(SUM(price_micros * gpu_count), 0)").
		Where("customer_id = ? AND state IN (?)", customerID, bun.List(activeStates)).Scan(ctx, &running); err != nil {
		return fmt.Errorf("billing: unable to read the customer's rentals: %w", err)
	}
	secs := int64(s.cfg.MinPrepaid / time.Second)
	held := models.USDC(running * secs / 3600)
	need := models.USDC(int64(perHour) * secs / 3600)
	if b-held >= need {
		return nil
	}
	var v fault.Validation
	if held > 0 {
		v.Add(field, fault.InsufficientFunds, fmt.Sprintf("your balance of %s USDC, less %s USDC held for %s of your running rentals, does not cover %s of this rental (%s USDC); add funds first",
			b, held, s.cfg.MinPrepaid, s.cfg.MinPrepaid, need))
	} else {
		v.Add(field, fault.InsufficientFunds, fmt.Sprintf("your balance of %s USDC does not cover %s of this rental (%s USDC); add funds first",
			b, s.cfg.MinPrepaid, need))
	}
	return &v
}

// activeStates are the rental states that are billed while they last.
var activeStates = []models.RentalState{models.RentalStarting, models.RentalRunning, models.RentalStopping}
