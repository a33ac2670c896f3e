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
// deposit confirmed by other means, with its reference: a transfer's id).
// A reference is used once: crediting it again is refused (DUPLICATE), so a
// retried request never credits twice. Problems come back as a
// *fault.Validation naming input fields; nothing changes then.
func (s *Service) Credit(ctx context.Context, userID int64, amount models.USDC, reference string) (models.USDC, error) {
	_, balance, err := s.CreditBank(ctx, BankCredit{UserID: userID, Amount: amount, Reference: reference})
	return balance, err
}

// BankCredit is an admin's credit of a customer's bank transfer: the
// customer (by UserID, or by Email when UserID is 0), the amount, the
// transfer's reference, why (Reason, required when an admin credits:
// AdminID set) and who.
type BankCredit struct {
	UserID    int64
	Email     string
	Amount    models.USDC
	Reference string
	Reason    string
	AdminID   int64
}

// MaxReason bounds a credit's reason.
const MaxReason = 500

// CreditBank credits c to its customer's prepaid balance and returns the
// customer and the balance after. The reason and the admin are kept on
// the DEPOSIT posting. A reference is credited once (DUPLICATE on
// input.reference); an unknown email is NOT_FOUND on input.email; bad
// input is a *fault.Validation naming its fields, and changes nothing.
func (s *Service) CreditBank(ctx context.Context, c BankCredit) (int64, models.USDC, error) {
	var v fault.Validation
	c.Reference, c.Reason, c.Email = strings.TrimSpace(c.Reference), strings.TrimSpace(c.Reason), strings.TrimSpace(c.Email)
	if c.UserID == 0 && c.Email == "" {
		v.Add("input.email", fault.Required, "give the customer's email")
	}
	checkCredit(&v, c.Amount, c.Reference)
	switch {
	case c.AdminID != 0 && c.Reason == "":
		v.Add("input.reason", fault.Required, "say why these funds are credited (the bank transfer it is)")
	case len(c.Reason) > MaxReason:
		v.Add("input.reason", fault.TooLong, fmt.Sprintf("at most %d characters", MaxReason))
	}
	if err := v.Err(); err != nil {
		return 0, 0, err
	}
	userID, err := s.customer(ctx, c.UserID, c.Email)
	if err != nil {
		return 0, 0, err
	}
	ltx := &models.LedgerTransaction{Kind: models.TxDeposit, Reference: c.Reference}
	if c.Reason != "" {
		ltx.Note = &c.Reason
	}
	if c.AdminID != 0 {
		ltx.ActorID = &c.AdminID
	}
	var balance models.USDC
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		dup, err := tx.NewSelect().Model((*models.LedgerTransaction)(nil)).Where("kind = ? AND reference = ?", models.TxDeposit, c.Reference).Count(ctx)
		if err != nil {
			return err
		}
		if dup > 0 {
			v.Add("input.reference", fault.Duplicate, "this reference was credited already")
			return &v
		}
		if err := s.postDeposit(ctx, tx, userID, c.Amount, ltx); err != nil {
			return err
		}
		balance, err = s.balance(ctx, tx, models.AccountCustomerFunds, userID)
		return err
	})
	if err != nil {
		if _, ok := fault.AsValidation(err); ok {
			return 0, 0, err
		}
		return 0, 0, fmt.Errorf("billing: unable to credit funds: %w", err)
	}
	return userID, balance, nil
}

// checkCredit checks a credit's amount and reference.
func checkCredit(v *fault.Validation, amount models.USDC, reference string) {
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
}

// customer finds the user credited: by id, or by email.
func (s *Service) customer(ctx context.Context, id int64, email string) (int64, error) {
	q := s.deps.DB.NewSelect().Model((*models.User)(nil)).Column("id")
	field := "input.userId"
	if id != 0 {
		q = q.Where("id = ?", id)
	} else {
		q = q.Where("lower(email) = lower(?)", email)
		field = "input.email"
	}
	var ids []int64
	if err := q.Limit(1).Scan(ctx, &ids); err != nil {
		return 0, fmt.Errorf("billing: unable to find the customer: %w", err)
	}
	if len(ids) == 0 {
		var v fault.Validation
		v.Add(field, fault.InvalidValue, "no account has this email")
		if id != 0 {
			return 0, fault.E(fault.NotFound, "no such user")
		}
		return 0, &v
	}
	return ids[0], nil
}

// PostDeposit credits amount (more than 0) to userID's prepaid balance
// inside the caller's transaction tx, as a DEPOSIT posting with reference
// (unique among deposits: the database refuses a second), and returns the
// posting's id. The deposit package credits a Solana transfer this way,
// in the transaction that marks the transfer credited.
func (s *Service) PostDeposit(ctx context.Context, tx bun.Tx, userID int64, amount models.USDC, reference string) (int64, error) {
	if amount <= 0 {
		return 0, fmt.Errorf("billing: a deposit of %d micro-USDC", amount)
	}
	ltx := &models.LedgerTransaction{Kind: models.TxDeposit, Reference: reference}
	if err := s.postDeposit(ctx, tx, userID, amount, ltx); err != nil {
		return 0, fmt.Errorf("billing: unable to credit a deposit: %w", err)
	}
	return ltx.ID, nil
}

// postDeposit posts ltx: amount from the deposits account to userID's
// funds.
func (s *Service) postDeposit(ctx context.Context, tx bun.Tx, userID int64, amount models.USDC, ltx *models.LedgerTransaction) error {
	return post(ctx, tx, s.deps.Clock.Now(), []*posting{{
		tx: ltx,
		legs: []leg{
			{accountKey{models.AccountDeposits, 0}, -amount},
			{accountKey{models.AccountCustomerFunds, userID}, amount},
		},
	}})
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
