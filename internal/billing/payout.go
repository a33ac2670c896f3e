package billing

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/billing/bank"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// PayoutConfig tunes payouts. Zero values take the defaults.
type PayoutConfig struct {
	// Threshold is the least available balance a weekly payout is made
	// for (default 10 USDC); monthly payouts pay any balance.
	Threshold models.USDC
	// CoolingOff holds payouts to a new destination this long after it
	// is set (default 48h).
	CoolingOff time.Duration
	// RunEvery is how often the leading replica runs payouts (default
	// 5m).
	RunEvery time.Duration
	// ConfirmTimeout bounds one wait for a Solana payout's confirmation
	// within a run (default 60s); past it the next run recovers it.
	ConfirmTimeout time.Duration
	// Bank is the platform's account bank files debit, with the batch's
	// currency and the USDC rate (RateOne: USD at par).
	Bank BankConfig
	// ExplorerURL prefixes a transaction's signature for its link
	// (default https://explorer.solana.com/tx/); ExplorerCluster, when
	// set, is its cluster parameter (devnet).
	ExplorerURL     string
	ExplorerCluster string
}

// BankConfig is the debtor side of bank payout files.
type BankConfig struct {
	Debtor   bank.Party
	Currency bank.Currency
	Rate     bank.Rate
}

// Ready reports whether bank payouts can be paid: a payout file needs
// the platform's own account, its IBAN and its bank's BIC. Without them
// the server takes no bank payout method (and says so at start-up).
func (c BankConfig) Ready() bool { return !c.Debtor.IBAN.IsZero() && !c.Debtor.BIC.IsZero() }

// bankOff is why bank payouts cannot be paid, for an operator.
const bankOff = "the platform has no paying bank account configured (gpunex serve --bank-debtor-iban and --bank-debtor-bic)"

func (c PayoutConfig) withDefaults() PayoutConfig {
	if c.Threshold <= 0 {
		c.Threshold = 10 * models.MicrosPerUSDC
	}
	if c.CoolingOff <= 0 {
		c.CoolingOff = 48 * time.Hour
	}
	if c.RunEvery <= 0 {
		c.RunEvery = 5 * time.Minute
	}
	if c.ConfirmTimeout <= 0 {
		c.ConfirmTimeout = time.Minute
	}
	if c.Bank.Rate <= 0 {
		c.Bank.Rate = bank.RateOne
	}
	if c.Bank.Currency == "" {
		c.Bank.Currency = "USD"
	}
	if c.ExplorerURL == "" {
		c.ExplorerURL = "https://explorer.solana.com/tx/"
	}
	return c
}

// Passwords checks a user's password again before a sensitive change.
type Passwords interface {
	// VerifyPassword returns nil when password is userID's, else a
	// *fault.Validation on input.password.
	VerifyPassword(ctx context.Context, userID int64, password string) error
}

// MethodInput is a payout method to set: a schedule and either a Solana
// wallet or a bank account, with the provider's password.
type MethodInput struct {
	Schedule      Schedule
	SolanaAddress *string
	IBAN, BIC     *string
	AccountHolder *string
	Password      string
}

// Method is a provider's payout method as shown: the IBAN masked but
// for its country and last four characters.
type Method struct {
	Schedule      Schedule
	Kind          models.PayoutKind
	SolanaAddress *string
	IBANMasked    *string
	BIC           *string
	AccountHolder *string
	ChangedAt     time.Time
	HoldUntil     time.Time
}

func methodOf(m *models.PayoutMethod) *Method {
	out := &Method{Schedule: Schedule(m.Schedule), Kind: models.PayoutKind(m.Kind), SolanaAddress: m.SolanaAddress, BIC: m.BIC,
		AccountHolder: m.AccountHolder, ChangedAt: m.ChangedAt, HoldUntil: m.HoldUntil}
	if m.IBAN != nil {
		masked := maskIBAN(*m.IBAN)
		out.IBANMasked = &masked
	}
	return out
}

// maskIBAN hides an IBAN but for its country and last four characters
// (wholly when it is too short for that to hide most of it; no valid IBAN
// is under 15).
func maskIBAN(iban string) string {
	if len(iban) < 12 {
		return strings.Repeat("•", len(iban))
	}
	return iban[:2] + strings.Repeat("•", len(iban)-6) + iban[len(iban)-4:]
}

// Notification kinds of payouts.
const (
	KindPayoutMethodChanged = "billing.payout_method_changed"
	KindPayoutPaid          = "billing.payout_paid"
	KindPayoutFailed        = "billing.payout_failed"
)

// SetMethod sets providerID's payout method, asked by userID (the
// provider's user) with the password again. A Solana address must be a
// wallet (ParseWallet's rules, and with a node configured, no token
// account); a bank account an IBAN of a supported country with its BIC
// and holder. A new destination holds payouts for CoolingOff; the
// provider is told in the app and by email. Problems come back as a
// *fault.Validation naming input fields, nothing changed.
func (s *Service) SetMethod(ctx context.Context, providerID, userID int64, in MethodInput) (*Method, error) {
	var v fault.Validation
	if s.deps.Passwords != nil {
		if err := s.deps.Passwords.VerifyPassword(ctx, userID, in.Password); err != nil {
			return nil, err
		}
	}
	if in.Schedule != Weekly && in.Schedule != Monthly {
		v.Add("input.schedule", fault.InvalidValue, "WEEKLY or MONTHLY")
	}
	m := &models.PayoutMethod{ProviderID: providerID, Schedule: string(in.Schedule)}
	switch {
	case in.SolanaAddress != nil && (in.IBAN != nil || in.BIC != nil):
		v.Add("input", fault.InvalidValue, "give a Solana address or a bank account, not both")
	case in.SolanaAddress != nil:
		m.Kind = string(models.PayoutSolana)
		var pk solana.PublicKey
		var err error
		if s.deps.Solana != nil {
			pk, err = s.deps.Solana.CheckWallet(ctx, *in.SolanaAddress)
		} else {
			pk, err = solana.ParseWallet(*in.SolanaAddress, solana.USDCMint)
		}
		var we *solana.WalletError
		switch {
		case errors.As(err, &we):
			v.Add("input.solanaAddress", fault.InvalidValue, we.Message)
		case err != nil:
			return nil, fmt.Errorf("billing: unable to check the Solana address: %w", err)
		default:
			addr := pk.String()
			m.SolanaAddress = &addr
		}
	case in.IBAN != nil || in.BIC != nil:
		m.Kind = string(models.PayoutBank)
		s.checkBank(&v, in, m)
	default:
		v.Add("input.solanaAddress", fault.Required, "give a Solana address or a bank account")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := s.deps.Clock.Now()
	m.ChangedAt = now
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var old models.PayoutMethod
		err := s.deps.DB.ForUpdate(tx.NewSelect().Model(&old).Where("provider_id = ?", providerID)).Scan(ctx)
		switch {
		case err == nil && sameDestination(&old, m):
			m.HoldUntil = old.HoldUntil
		case err == nil || store.IsNoRows(err):
			m.HoldUntil = now.Add(s.pcfg.CoolingOff)
		default:
			return err
		}
		if _, err := tx.NewInsert().Model(m).On("CONFLICT (provider_id) DO UPDATE").
			Set("schedule = EXCLUDED.schedule, kind = EXCLUDED.kind, solana_address = EXCLUDED.solana_address").
			Set("iban = EXCLUDED.iban, bic = EXCLUDED.bic, account_holder = EXCLUDED.account_holder").
			Set("changed_at = EXCLUDED.changed_at, hold_until = EXCLUDED.hold_until").Exec(ctx); err != nil {
			return err
		}
		return s.tellMethodChanged(ctx, tx, userID, m)
	})
	if err != nil {
		return nil, fmt.Errorf("billing: unable to set the payout method: %w", err)
	}
	return methodOf(m), nil
}

func (s *Service) checkBank(v *fault.Validation, in MethodInput, m *models.PayoutMethod) {
	if !s.pcfg.Bank.Ready() {
		v.Add("input.iban", fault.InvalidState, "bank transfers are not available on this platform yet: choose a Solana wallet")
		return
	}
	if in.IBAN == nil {
		v.Add("input.iban", fault.Required, "give the account's IBAN")
	} else if iban, err := bank.ParseIBAN(*in.IBAN); err != nil {
		v.Add("input.iban", fault.InvalidValue, bankMessage(err))
	} else {
		str := iban.String()
		m.IBAN = &str
	}
	if in.BIC == nil {
		v.Add("input.bic", fault.Required, "give the bank's BIC")
	} else if bic, err := bank.ParseBIC(*in.BIC); err != nil {
		v.Add("input.bic", fault.InvalidValue, bankMessage(err))
	} else {
		str := bic.String()
		m.BIC = &str
	}
	holder := ""
	if in.AccountHolder != nil {
		holder = strings.TrimSpace(*in.AccountHolder)
	}
	switch {
	case holder == "":
		v.Add("input.accountHolder", fault.Required, "give the account holder's name as the bank holds it")
	case len(holder) > 140:
		v.Add("input.accountHolder", fault.TooLong, "at most 140 characters")
	default:
		m.AccountHolder = &holder
	}
}

func bankMessage(err error) string {
	var be *bank.Error
	if errors.As(err, &be) {
		return be.Message
	}
	return err.Error()
}

func sameDestination(a, b *models.PayoutMethod) bool {
	eq := func(x, y *string) bool { return (x == nil && y == nil) || (x != nil && y != nil && *x == *y) }
	return a.Kind == b.Kind && eq(a.SolanaAddress, b.SolanaAddress) && eq(a.IBAN, b.IBAN) && eq(a.BIC, b.BIC)
}

func (s *Service) tellMethodChanged(ctx context.Context, tx bun.Tx, userID int64, m *models.PayoutMethod) error {
	dest, address := "a bank account", ""
	if m.SolanaAddress != nil {
		dest, address = "the Solana wallet "+*m.SolanaAddress, *m.SolanaAddress
	} else if m.IBAN != nil {
		address = *methodOf(m).IBANMasked
		dest = "the bank account " + address
	}
	title := "Your payout method changed"
	body := fmt.Sprintf("Payouts now go to %s, %s. Payouts to it start after %s. If you did not make this change, change your password and contact us.",
		dest, strings.ToLower(m.Schedule), m.HoldUntil.UTC().Format("2006-01-02 15:04 UTC"))
	if s.deps.Notify != nil {
		if err := s.deps.Notify.Add(ctx, tx, &models.Notification{UserID: userID, Kind: KindPayoutMethodChanged, Title: title, Body: body,
			Params: map[string]string{"kind": m.Kind, "schedule": m.Schedule, "holdUntil": m.HoldUntil.UTC().Format(time.RFC3339), "address": address}}); err != nil {
			return err
		}
	}
	return s.mailUser(ctx, tx, userID, func(email, name string) mail.Message { return methodChangedEmail(userID, email, name, m) })
}

// methodChangedEmail tells userID (at email, named name), in their
// language, where payouts go now and from when.
func methodChangedEmail(userID int64, email, name string, m *models.PayoutMethod) mail.Message {
	msg := mail.ForUser(userID, func(lang models.Language) *mail.Email {
		e := mail.Compose(lang, KindPayoutMethodChanged).Subject(nil).Greeting(name)
		schedule := e.T("schedule."+m.Schedule, nil)
		switch {
		case m.SolanaAddress != nil:
			e.P("solana", mail.Vars{"address": *m.SolanaAddress, "schedule": schedule})
		case m.IBAN != nil:
			e.P("iban", mail.Vars{"iban": *methodOf(m).IBANMasked, "schedule": schedule})
		default:
			e.P("bank", mail.Vars{"schedule": schedule})
		}
		return e.P("hold", mail.Vars{"holdUntil": e.DateTime(m.HoldUntil)}).P("warning", nil).SignOff()
	})
	msg.To = email
	return msg
}

// payoutMethod is providerID's stored payout method (nil: none set).
func (s *Service) payoutMethod(ctx context.Context, providerID int64) (*models.PayoutMethod, error) {
	var m models.PayoutMethod
	err := s.deps.DB.NewSelect().Model(&m).Where("provider_id = ?", providerID).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("billing: unable to read the payout method: %w", err)
	}
	return &m, nil
}

// MethodOf is providerID's payout method (nil: none set).
func (s *Service) MethodOf(ctx context.Context, providerID int64) (*Method, error) {
	m, err := s.payoutMethod(ctx, providerID)
	if m == nil || err != nil {
		return nil, err
	}
	return methodOf(m), nil
}

// Due is the payout period whose payout is due at or before now: for
// weekly the week before this one (due Monday 00:00), for monthly the
// month before (due on this month's first business day, Monday to
// Friday, 00:00), both in loc. Public holidays are not business-day
// exceptions (banks' calendars differ; document it to providers).
func Due(kind Schedule, now time.Time, loc *time.Location) (start, end, dueAt time.Time) {
	if kind == Monthly {
		thisMonth, _ := PeriodOf(Monthly, now, loc)
		due := firstBusinessDay(thisMonth)
		if now.Before(due) {
			thisMonth = thisMonth.AddDate(0, -1, 0)
			due = firstBusinessDay(thisMonth)
		}
		return thisMonth.AddDate(0, -1, 0), thisMonth, due
	}
	thisWeek, _ := PeriodOf(Weekly, now, loc)
	return thisWeek.AddDate(0, 0, -7), thisWeek, thisWeek
}

func firstBusinessDay(month time.Time) time.Time {
	d := month
	for d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// NextPayout is when a provider's next payout is due and whether it will
// be made.
type NextPayout struct {
	PeriodStart, PeriodEnd, DueAt time.Time
	Available, Threshold          models.USDC
	ThresholdMet                  bool
	// HeldUntil is set while a new destination cools off.
	HeldUntil *time.Time
}

// Next is providerID's next payout (nil without a payout method).
func (s *Service) Next(ctx context.Context, providerID int64) (*NextPayout, error) {
	m, err := s.payoutMethod(ctx, providerID)
	if m == nil || err != nil {
		return nil, err
	}
	loc, err := s.zoneOf(ctx, providerID)
	if err != nil {
		return nil, err
	}
	now := s.deps.Clock.Now()
	kind := Schedule(m.Schedule)
	// The next due time after now: the current period's end.
	start, end := PeriodOf(kind, now, loc)
	due := end
	if kind == Monthly {
		due = firstBusinessDay(end)
	}
	avail, err := s.balance(ctx, s.deps.DB, models.AccountProviderEarnings, providerID)
	if err != nil {
		return nil, err
	}
	n := &NextPayout{PeriodStart: start, PeriodEnd: end, DueAt: due, Available: avail, Threshold: s.threshold(kind)}
	n.ThresholdMet = avail >= n.Threshold && avail > 0
	if m.HoldUntil.After(now) {
		n.HeldUntil = &m.HoldUntil
	}
	return n, nil
}

func (s *Service) threshold(kind Schedule) models.USDC {
	if kind == Monthly {
		return 1
	}
	return s.pcfg.Threshold
}

// Payouts lists providerID's payouts, the latest period first (at most
// limit).
func (s *Service) Payouts(ctx context.Context, providerID int64, limit int) ([]*models.Payout, error) {
	var out []*models.Payout
	if err := s.deps.DB.NewSelect().Model(&out).ExcludeColumn("raw_tx").Where("provider_id = ?", providerID).
		Order("period_start DESC", "id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to list payouts: %w", err)
	}
	return out, nil
}

// RunPayouts is one payout run (the leader runs it every RunEvery): it
// creates the due payout of every provider whose method is past its
// cooling-off and whose balance meets the threshold (one per provider and
// period: a unique index, so a second run or a second replica creates
// none), then sends what can be sent: Solana payouts through the node
// (recovering any a crash left in PROCESSING first). Bank and manual
// payouts wait for an admin.
func (s *Service) RunPayouts(ctx context.Context) error {
	if err := s.createDue(ctx); err != nil {
		return err
	}
	if s.deps.Solana == nil {
		return nil
	}
	var open []*models.Payout
	if err := s.deps.DB.NewSelect().Model(&open).Where("kind = ? AND state IN (?)", models.PayoutSolana,
		bun.List([]models.PayoutState{models.PayoutPending, models.PayoutProcessing})).Order("id").Scan(ctx); err != nil {
		return fmt.Errorf("billing: unable to list open payouts: %w", err)
	}
	var errs []error
	for _, p := range open {
		if err := s.sendSolana(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("payout %d: %w", p.ID, err))
		}
	}
	return errors.Join(errs...)
}

// createDue creates the payouts due now.
func (s *Service) createDue(ctx context.Context) error {
	now := s.deps.Clock.Now()
	var methods []*models.PayoutMethod
	if err := s.deps.DB.NewSelect().Model(&methods).Where("hold_until <= ?", now).Order("provider_id").Scan(ctx); err != nil {
		return fmt.Errorf("billing: unable to list payout methods: %w", err)
	}
	for _, m := range methods {
		loc, err := s.zoneOf(ctx, m.ProviderID)
		if err != nil {
			return err
		}
		start, end, due := Due(Schedule(m.Schedule), now, loc)
		// A period is paid on its due day to a method that was ready then
		// (past its cooling-off): a method set later waits for the next
		// due day, as the provider guide promises, rather than paying the
		// period before at once, on any day.
		if now.Before(due) || m.HoldUntil.After(due) {
			continue
		}
		if err := s.createPayout(ctx, m, start, end, now); err != nil {
			return err
		}
	}
	return nil
}

// createPayout makes m's payout for the period [start, end), if none
// exists and the balance meets the threshold: the payout row and the
// posting that moves its amount from the provider's earnings to payouts
// in flight, in one transaction.
func (s *Service) createPayout(ctx context.Context, m *models.PayoutMethod, start, end, now time.Time) error {
	return s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*models.Payout)(nil)).Where("provider_id = ? AND period_start = ?", m.ProviderID, start.UTC()).Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		balance, ok, err := s.lockEarnings(ctx, tx, m.ProviderID)
		if err != nil || !ok {
			return err
		}
		// The period's payout carries what was posted before its end,
		// never what was earned since (that is the next period's), less
		// what payouts on request took since.
		st, err := s.statement(ctx, tx, m.ProviderID, start, end)
		if err != nil {
			return err
		}
		since, err := s.payoutsSince(ctx, tx, m.ProviderID, end)
		if err != nil {
			return err
		}
		amount := min(balance, st.Closing+since)
		if amount < s.threshold(Schedule(m.Schedule)) {
			return nil
		}
		_, err = s.payOut(ctx, tx, m, start, end, amount, now, fmt.Sprintf("GPX-%d-%s", m.ProviderID, start.Format("20060102")))
		return err
	})
}

// lockEarnings locks providerID's earnings account in tx and returns its
// balance; ok is false when the provider has never earned.
func (s *Service) lockEarnings(ctx context.Context, tx bun.Tx, providerID int64) (models.USDC, bool, error) {
	var acct models.LedgerAccount
	err := s.deps.DB.ForUpdate(tx.NewSelect().Model(&acct).Where("kind = ? AND owner_id = ?", models.AccountProviderEarnings, providerID)).Scan(ctx)
	switch {
	case store.IsNoRows(err):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("billing: unable to lock the earnings: %w", err)
	}
	return acct.Balance, true, nil
}

// payoutsSince is what payouts took from providerID's earnings (negative)
// and what failed ones returned, posted at or after t.
func (s *Service) payoutsSince(ctx context.Context, idb bun.IDB, providerID int64, t time.Time) (models.USDC, error) {
	var sum int64
	if err := idb.NewSelect().TableExpr("ledger_entries AS le").
		Join("JOIN ledger_accounts AS la ON la.id = le.account_id").
		Join("JOIN ledger_transactions AS lt ON lt.id = le.transaction_id").
		ColumnExpr("COALESCE(SUM(le.amount_micros), 0)").
		Where("la.kind = ? AND la.owner_id = ? AND le.created_at >= ? AND lt.kind IN (?)", models.AccountProviderEarnings, providerID, t.UTC(),
			bun.List([]models.LedgerTxKind{models.TxPayout, models.TxPayoutReturn})).Scan(ctx, &sum); err != nil {
		return 0, fmt.Errorf("billing: unable to read the payouts since the period's end: %w", err)
	}
	return models.USDC(sum), nil
}

// payOut stores a payout of amount to m's destination for [start, end)
// with its reference and moves the amount from the provider's earnings to
// payouts in flight, in tx; nil when a bank payout would be under a cent
// or the period's payout exists already.
func (s *Service) payOut(ctx context.Context, tx bun.Tx, m *models.PayoutMethod, start, end time.Time, amount models.USDC, now time.Time, reference string) (*models.Payout, error) {
	p := &models.Payout{ProviderID: m.ProviderID, PeriodStart: start.UTC(), PeriodEnd: end.UTC(), State: models.PayoutPending,
		CreatedAt: now, UpdatedAt: now, Reference: reference}
	switch {
	case m.Kind == string(models.PayoutBank):
		_, settled, err := bank.Convert(amount, s.pcfg.Bank.Rate)
		if err != nil || settled <= 0 {
			return nil, nil // under a cent: it stays for the next period
		}
		p.Amount, p.Kind, p.Destination = settled, models.PayoutBank, *m.IBAN
	case s.deps.Solana != nil:
		p.Amount, p.Kind, p.Destination = amount, models.PayoutSolana, *m.SolanaAddress
	default:
		p.Amount, p.Kind, p.Destination = amount, models.PayoutManual, *m.SolanaAddress
	}
	if _, err := tx.NewInsert().Model(p).Returning("id").Exec(ctx); err != nil {
		if s.deps.DB.IsUniqueViolation(err) {
			return nil, nil
		}
		return nil, err
	}
	pid := p.ID
	return p, post(ctx, tx, now, []*posting{{
		tx: &models.LedgerTransaction{Kind: models.TxPayout, Reference: p.Reference, PayoutID: &pid},
		legs: []leg{
			{accountKey{models.AccountProviderEarnings, m.ProviderID}, -p.Amount},
			{accountKey{models.AccountPayoutsInFlight, m.ProviderID}, p.Amount},
		},
	}})
}

// RequestPayout pays providerID's whole available balance now, on the
// provider's request, to its payout method: a payout of the instant it was
// asked, carrying what was posted to its earnings up to then, sent by the next payout run (Solana)
// or left for an admin (bank, manual). It is refused (INVALID_STATE on
// the field named) without a method, while a new destination cools off,
// while another payout is on its way, and under the weekly threshold (the
// least worth a transfer). The period's scheduled payout then carries
// only what is left of that period.
func (s *Service) RequestPayout(ctx context.Context, providerID int64) (*models.Payout, error) {
	var out *models.Payout
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		refuse := func(field string, code fault.ProblemCode, msg string) error {
			var v fault.Validation
			v.Add(field, code, msg)
			return &v
		}
		var m models.PayoutMethod
		err := s.deps.DB.ForUpdate(tx.NewSelect().Model(&m).Where("provider_id = ?", providerID)).Scan(ctx)
		if store.IsNoRows(err) {
			return refuse("method", fault.InvalidState, "set a payout method first")
		}
		if err != nil {
			return fmt.Errorf("billing: unable to read the payout method: %w", err)
		}
		now := s.deps.Clock.Now().UTC().Truncate(time.Microsecond)
		if m.HoldUntil.After(now) {
			return refuse("method", fault.InvalidState, "payouts to a new destination are held until "+m.HoldUntil.UTC().Format(time.RFC3339))
		}
		open, err := tx.NewSelect().Model((*models.Payout)(nil)).Where("provider_id = ? AND state IN (?)", providerID,
			bun.List([]models.PayoutState{models.PayoutPending, models.PayoutProcessing})).Count(ctx)
		if err != nil {
			return fmt.Errorf("billing: unable to read open payouts: %w", err)
		}
		if open > 0 {
			return refuse("amount", fault.InvalidState, "a payout is already on its way: ask again once it is paid")
		}
		balance, _, err := s.lockEarnings(ctx, tx, providerID)
		if err != nil {
			return err
		}
		if balance < s.pcfg.Threshold {
			return refuse("amount", fault.OutOfRange, fmt.Sprintf("the available %s USDC is under the %s USDC a payout needs", balance, s.pcfg.Threshold))
		}
		// A payout on request is for the instant it was asked (its period
		// starts and ends then), apart from every scheduled period, which
		// starts at midnight.
		p, err := s.payOut(ctx, tx, &m, now, now, balance, now, fmt.Sprintf("GPX-%d-%s", providerID, now.Format("20060102T150405")))
		if err != nil {
			return err
		}
		if p == nil {
			return refuse("amount", fault.OutOfRange, "the available balance is under a cent in the bank account's currency")
		}
		out = p
		return nil
	})
	return out, err
}

// Statement is a provider's earnings account over one payout period, by
// the time each entry was posted: what it held before the period
// (Opening), the rentals' earnings and operators' adjustments posted in it
// (Earned), the payouts taken from it and returned to it in it (PaidOut,
// negative, net of returns), and what it held at the period's end
// (Closing = Opening + Earned + PaidOut). The period's payout carries
// Closing (when it meets the threshold): the two reconcile to the
// micro-USDC.
type Statement struct {
	PeriodStart, PeriodEnd            time.Time
	Opening, Earned, PaidOut, Closing models.USDC
}

// StatementOf is providerID's statement of the period [start, end).
func (s *Service) StatementOf(ctx context.Context, providerID int64, start, end time.Time) (*Statement, error) {
	return s.statement(ctx, s.deps.DB, providerID, start, end)
}

func (s *Service) statement(ctx context.Context, idb bun.IDB, providerID int64, start, end time.Time) (*Statement, error) {
	var rows []struct {
		Payout bool  `bun:"payout"`
		Before bool  `bun:"before"`
		Sum    int64 `bun:"sum"`
	}
	payoutKinds := []models.LedgerTxKind{models.TxPayout, models.TxPayoutReturn}
	if err := idb.NewSelect().TableExpr("ledger_entries AS le").
		Join("JOIN ledger_accounts AS la ON la.id = le.account_id").
		Join("JOIN ledger_transactions AS lt ON lt.id = le.transaction_id").
		ColumnExpr("lt.kind IN (?) AS payout", bun.List(payoutKinds)).
		ColumnExpr("le.created_at < ? AS before", start.UTC()).
		ColumnExpr("COALESCE(SUM(le.amount_micros), 0) AS sum").
		Where("la.kind = ? AND la.owner_id = ? AND le.created_at < ?", models.AccountProviderEarnings, providerID, end.UTC()).
		GroupExpr("1, 2").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("billing: unable to read the earnings statement: %w", err)
	}
	st := &Statement{PeriodStart: start.UTC(), PeriodEnd: end.UTC()}
	for _, r := range rows {
		switch {
		case r.Before:
			st.Opening += models.USDC(r.Sum)
		case r.Payout:
			st.PaidOut += models.USDC(r.Sum)
		default:
			st.Earned += models.USDC(r.Sum)
		}
	}
	st.Closing = st.Opening + st.Earned + st.PaidOut
	return st, nil
}

// sendSolana takes a Solana payout forward by the recovery protocol of
// internal/billing/solana: a stored transaction is looked up before
// anything new is built; a new one is stored (PROCESSING, with its
// signature) before it is sent.
func (s *Service) sendSolana(ctx context.Context, p *models.Payout) error {
	client := s.deps.Solana
	if p.Signature != nil {
		prepared, err := preparedOf(p)
		if err != nil {
			return err
		}
		action, st, err := client.Recover(ctx, prepared)
		if err != nil {
			return err
		}
		switch action {
		case solana.ActionPaid:
			return s.settle(ctx, p.ID, true, *p.Signature, "")
		case solana.ActionFailed:
			return s.settle(ctx, p.ID, false, "", "the transaction failed on chain: "+st.Err)
		case solana.ActionWait:
			return nil
		case solana.ActionResend:
			return s.sendAndWait(ctx, p, prepared)
		case solana.ActionRebuild:
		}
	}
	recipient, err := solana.ParseWallet(p.Destination, client.Mint())
	if err != nil {
		return s.settle(ctx, p.ID, false, "", "the destination is not a wallet: "+err.Error())
	}
	prepared, err := client.Prepare(ctx, recipient, p.Amount, p.Reference)
	if err != nil {
		return err
	}
	raw := base64.StdEncoding.EncodeToString(prepared.Raw)
	height := int64(prepared.LastValidBlockHeight)
	now := s.deps.Clock.Now()
	res, err := s.deps.DB.NewUpdate().Model((*models.Payout)(nil)).
		Set("state = ?, signature = ?, raw_tx = ?, last_valid_block_height = ?, updated_at = ?", models.PayoutProcessing, prepared.Signature, raw, height, now).
		Where("id = ? AND state IN (?) AND (signature IS NULL OR signature = ?)", p.ID,
			bun.List([]models.PayoutState{models.PayoutPending, models.PayoutProcessing}), strOr(p.Signature)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("billing: unable to store the payout's transaction: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil // another run took it
	}
	p.Signature = &prepared.Signature
	return s.sendAndWait(ctx, p, prepared)
}

func strOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func preparedOf(p *models.Payout) (*solana.Prepared, error) {
	raw, err := base64.StdEncoding.DecodeString(strOr(p.RawTx))
	if err != nil || p.LastValidBlockHeight == nil {
		return nil, fmt.Errorf("billing: payout %d's stored transaction is unreadable", p.ID)
	}
	return &solana.Prepared{Signature: *p.Signature, Raw: raw, LastValidBlockHeight: uint64(*p.LastValidBlockHeight)}, nil
}

func (s *Service) sendAndWait(ctx context.Context, p *models.Payout, prepared *solana.Prepared) error {
	if err := s.deps.Solana.Send(ctx, prepared); err != nil {
		return err // the next run recovers it
	}
	err := s.deps.Solana.WaitConfirmed(ctx, prepared, s.pcfg.ConfirmTimeout)
	switch {
	case err == nil:
		return s.settle(ctx, p.ID, true, prepared.Signature, "")
	case errors.Is(err, solana.ErrFailed):
		return s.settle(ctx, p.ID, false, "", err.Error())
	default:
		return nil // unknown yet (expired or timed out): the next run recovers it
	}
}

// settle ends a payout PAID (its amount leaves payouts in flight for paid
// out) or FAILED (it returns to the provider's earnings), once, and tells
// the provider.
func (s *Service) settle(ctx context.Context, id int64, paid bool, reference, failure string) error {
	return s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var p models.Payout
		if err := s.deps.DB.ForUpdate(tx.NewSelect().Model(&p).Where("id = ?", id)).Scan(ctx); err != nil {
			return err
		}
		if p.State == models.PayoutPaid || p.State == models.PayoutFailed {
			return nil
		}
		now := s.deps.Clock.Now()
		p.UpdatedAt = now
		pid := p.ID
		var pst *posting
		if paid {
			p.State, p.PaidAt = models.PayoutPaid, &now
			if reference != "" {
				p.PaidReference = &reference
			}
			pst = &posting{tx: &models.LedgerTransaction{Kind: models.TxPayoutPaid, Reference: p.Reference, PayoutID: &pid},
				legs: []leg{{accountKey{models.AccountPayoutsInFlight, p.ProviderID}, -p.Amount}, {accountKey{models.AccountPaidOut, 0}, p.Amount}}}
		} else {
			p.State, p.Failure = models.PayoutFailed, &failure
			pst = &posting{tx: &models.LedgerTransaction{Kind: models.TxPayoutReturn, Reference: p.Reference, PayoutID: &pid},
				legs: []leg{{accountKey{models.AccountPayoutsInFlight, p.ProviderID}, -p.Amount}, {accountKey{models.AccountProviderEarnings, p.ProviderID}, p.Amount}}}
		}
		if _, err := tx.NewUpdate().Model(&p).Column("state", "paid_at", "paid_reference", "failure", "updated_at").WherePK().Exec(ctx); err != nil {
			return err
		}
		if err := post(ctx, tx, now, []*posting{pst}); err != nil {
			return err
		}
		s.announce(ctx, p.ProviderID)
		return s.tellPayout(ctx, tx, &p)
	})
}

func (s *Service) tellPayout(ctx context.Context, tx bun.Tx, p *models.Payout) error {
	if s.deps.Notify == nil {
		return nil
	}
	var userID int64
	if err := tx.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", p.ProviderID).Scan(ctx, &userID); err != nil {
		return err
	}
	n := &models.Notification{UserID: userID, Params: map[string]string{"payoutId": strconv.FormatInt(p.ID, 10), "amount": p.Amount.String()}}
	// The SPA writes the notice in the reader's language from these params.
	destination := payoutDestination(p)
	n.Params["destination"] = destination
	if p.State == models.PayoutPaid {
		n.Params["reference"] = strOr(p.PaidReference)
		n.Kind, n.Title = KindPayoutPaid, "Payout sent"
		n.Body = fmt.Sprintf("%s USDC were paid to %s (reference %s).", p.Amount, destination, strOr(p.PaidReference))
	} else {
		n.Params["failure"] = strOr(p.Failure)
		n.Kind, n.Title = KindPayoutFailed, "Payout failed"
		n.Body = fmt.Sprintf("The payout of %s USDC failed and is back in your balance: %s", p.Amount, strOr(p.Failure))
	}
	if err := s.deps.Notify.Add(ctx, tx, n); err != nil {
		return err
	}
	return s.mailUser(ctx, tx, userID, func(email, name string) mail.Message {
		return payoutEmail(userID, email, name, p, s.TransactionURL(p))
	})
}

// mailUser enqueues, in tx, the email write makes for userID from their
// address and name (none without an outbox).
func (s *Service) mailUser(ctx context.Context, tx bun.Tx, userID int64, write func(email, name string) mail.Message) error {
	if s.deps.Outbox == nil {
		return nil
	}
	var to struct {
		Email string `bun:"email"`
		Name  string `bun:"name"`
	}
	if err := tx.NewSelect().Model((*models.User)(nil)).Column("email", "name").Where("id = ?", userID).Scan(ctx, &to); err != nil {
		return err
	}
	return s.deps.Outbox.Enqueue(ctx, tx, write(to.Email, to.Name))
}

// payoutDestination is where p went as the provider may be shown it, in
// a notice or an email: a Solana wallet's address, a bank account's IBAN
// masked.
func payoutDestination(p *models.Payout) string {
	if p.Kind == models.PayoutBank {
		return maskIBAN(p.Destination)
	}
	return p.Destination
}

// payoutEmail tells userID (at email, named name), in their language,
// that payout p was paid (with its reference and, for a Solana payout,
// its transaction at txURL) or failed (why, and that the amount is back
// in the balance). Each payout's outcome is mailed once.
func payoutEmail(userID int64, email, name string, p *models.Payout, txURL *string) mail.Message {
	kind := KindPayoutFailed
	if p.State == models.PayoutPaid {
		kind = KindPayoutPaid
	}
	msg := mail.ForUser(userID, func(lang models.Language) *mail.Email { return payoutLetter(lang, kind, name, p, txURL) })
	msg.To = email
	msg.DedupeKey = "payout:" + strconv.FormatInt(p.ID, 10) + ":" + string(p.State)
	return msg
}

// payoutLetter writes payoutEmail's email of kind in lang. The reason of
// a failure is quoted as recorded (the chain's or the admin's words).
func payoutLetter(lang models.Language, kind, name string, p *models.Payout, txURL *string) *mail.Email {
	e := mail.Compose(lang, kind)
	amount := e.USDC(p.Amount)
	e.Subject(mail.Vars{"amount": amount}).Greeting(name)
	if p.Kind == models.PayoutBank {
		e.P("bank", mail.Vars{"amount": amount, "iban": maskIBAN(p.Destination)})
	} else {
		e.P("solana", mail.Vars{"amount": amount, "address": p.Destination})
	}
	if p.State == models.PayoutPaid {
		if ref := strOr(p.PaidReference); ref != "" {
			e.P("reference", mail.Vars{"reference": ref})
		}
		if txURL != nil {
			e.P("transaction", nil).URL(*txURL)
		}
		e.P("statement", nil)
	} else {
		e.P("reason", nil).Quote(strOr(p.Failure)).P("balance", nil).P("check", nil)
	}
	return e.SignOff()
}

// MarkPaid is an admin's confirmation that a bank or manual payout was
// paid, with the bank's or the transfer's reference.
func (s *Service) MarkPaid(ctx context.Context, id int64, reference string) (*models.Payout, error) {
	reference = strings.TrimSpace(reference)
	if reference == "" || len(reference) > 200 {
		var v fault.Validation
		v.Add("input.reference", fault.Required, "give the payment's reference (at most 200 characters)")
		return nil, &v
	}
	return s.adminSettle(ctx, id, true, reference, "")
}

// MarkFailed is an admin's report that a bank or manual payout failed:
// its amount returns to the provider's balance.
func (s *Service) MarkFailed(ctx context.Context, id int64, reason string) (*models.Payout, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || len(reason) > 500 {
		var v fault.Validation
		v.Add("input.reason", fault.Required, "say why it failed (at most 500 characters)")
		return nil, &v
	}
	return s.adminSettle(ctx, id, false, "", reason)
}

func (s *Service) adminSettle(ctx context.Context, id int64, paid bool, reference, reason string) (*models.Payout, error) {
	var p models.Payout
	if err := s.deps.DB.NewSelect().Model(&p).Where("id = ?", id).Scan(ctx); err != nil {
		if store.IsNoRows(err) {
			return nil, fault.E(fault.NotFound, "no such payout")
		}
		return nil, err
	}
	if p.Kind == models.PayoutSolana || p.State == models.PayoutPaid || p.State == models.PayoutFailed {
		var v fault.Validation
		v.Add("id", fault.InvalidState, "only a pending or processing bank or manual payout is settled by hand")
		return nil, &v
	}
	if err := s.settle(ctx, id, paid, reference, reason); err != nil {
		return nil, err
	}
	if err := s.deps.DB.NewSelect().Model(&p).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, err
	}
	return &p, nil
}

// AllPayouts lists payouts for admins, newest first, optionally in one
// state.
func (s *Service) AllPayouts(ctx context.Context, state *models.PayoutState, limit int) ([]*models.Payout, error) {
	var out []*models.Payout
	q := s.deps.DB.NewSelect().Model(&out).ExcludeColumn("raw_tx").Order("id DESC").Limit(int64(limit))
	if state != nil {
		q = q.Where("state = ?", *state)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to list payouts: %w", err)
	}
	return out, nil
}

// BankFile makes the ISO 20022 pain.001 file of every pending bank
// payout for the finance operator and moves them to PROCESSING (an admin
// then marks each paid with the bank's reference). Payouts the file
// cannot carry (a name outside the SEPA character set, say) stay pending
// and are named in the error.
func (s *Service) BankFile(ctx context.Context) ([]byte, []*models.Payout, error) {
	if !s.pcfg.Bank.Ready() {
		var v fault.Validation
		v.Add("kind", fault.InvalidState, "no bank payout file can be made: "+bankOff)
		return nil, nil, &v
	}
	var file []byte
	var claimed []*models.Payout
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// The pending bank payouts are claimed (moved to PROCESSING) first,
		// in the file's transaction: of two admins asking at once, one
		// claims them and the other finds none, so no payout is written
		// into two files. The conditional update is the claim on both
		// databases; the file is built from the rows it returned.
		claimed = nil
		now := s.deps.Clock.Now()
		if err := tx.NewUpdate().Model(&claimed).Set("state = ?, updated_at = ?", models.PayoutProcessing, now).
			Where("kind = ? AND state = ?", models.PayoutBank, models.PayoutPending).Returning("*").Scan(ctx); err != nil && !store.IsNoRows(err) {
			return fmt.Errorf("billing: unable to claim the bank payouts: %w", err)
		}
		if len(claimed) == 0 {
			var v fault.Validation
			v.Add("kind", fault.InvalidState, "no bank payout is pending")
			return &v
		}
		slices.SortFunc(claimed, func(a, b *models.Payout) int { return cmp.Compare(a.ID, b.ID) })
		ids := make([]int64, len(claimed))
		for i, p := range claimed {
			ids[i] = p.ProviderID
		}
		var methods []*models.PayoutMethod
		if err := tx.NewSelect().Model(&methods).Where("provider_id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
			return err
		}
		holder := map[int64]*models.PayoutMethod{}
		for _, m := range methods {
			holder[m.ProviderID] = m
		}
		batch := bank.Batch{MessageID: "GPX-" + now.UTC().Format("20060102150405"), CreatedAt: now, ExecutionDate: now,
			Debtor: s.pcfg.Bank.Debtor, Currency: s.pcfg.Bank.Currency, Rate: s.pcfg.Bank.Rate}
		for _, p := range claimed {
			m := holder[p.ProviderID]
			iban, err := bank.ParseIBAN(p.Destination)
			if err != nil || m == nil {
				return fmt.Errorf("billing: payout %d's account is unreadable", p.ID)
			}
			var bic bank.BIC
			if m.BIC != nil {
				bic, _ = bank.ParseBIC(*m.BIC)
			}
			batch.Payouts = append(batch.Payouts, bank.Payout{Reference: p.Reference, Amount: p.Amount,
				Creditor: bank.Party{Name: strOr(m.AccountHolder), IBAN: iban, BIC: bic}, Remittance: "GPUnex earnings " + p.Reference})
		}
		var err error
		file, err = bank.Pain001(batch)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return file, claimed, nil
}

// PendingPayouts are providerID's payouts not yet settled, oldest first.
func (s *Service) PendingPayouts(ctx context.Context, providerID int64) ([]*models.Payout, error) {
	out := []*models.Payout{}
	if err := s.deps.DB.NewSelect().Model(&out).ExcludeColumn("raw_tx").Where("provider_id = ? AND state IN (?)", providerID,
		bun.List([]models.PayoutState{models.PayoutPending, models.PayoutProcessing})).Order("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to list pending payouts: %w", err)
	}
	return out, nil
}

// TransactionURL links a Solana payout's transaction on the explorer
// (nil for others).
func (s *Service) TransactionURL(p *models.Payout) *string {
	if p.Signature == nil || p.Kind != models.PayoutSolana {
		return nil
	}
	u := s.pcfg.ExplorerURL + *p.Signature
	if s.pcfg.ExplorerCluster != "" {
		u += "?cluster=" + s.pcfg.ExplorerCluster
	}
	return &u
}
