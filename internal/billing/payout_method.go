package billing

import (
	"context"
	"errors"
	"fmt"
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

// SetMethod sets providerID's payout method, asked by userID (the
// provider's user) with the password again. A Solana address must be a
// wallet (ParseWallet's rules, and with a node configured, no token
// account); a bank account an IBAN of a supported country with its BIC
// and holder. A new destination holds payouts for CoolingOff; the
// provider is told in the app and by email. Problems come back as a
// *fault.Validation naming input fields, nothing changed: every field's at
// once, a wrong password beside the address's, so one try shows all there
// is to fix.
func (s *Service) SetMethod(ctx context.Context, providerID, userID int64, in MethodInput) (*Method, error) {
	var v fault.Validation
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
			v.Add("input.solanaAddress", we.Code, we.Message)
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
	// The password last, always: its problem joins the others; anything
	// else (the log-in limiter's refusal, a failure) stands alone.
	if s.deps.Passwords != nil {
		err := s.deps.Passwords.VerifyPassword(ctx, userID, in.Password)
		var pv *fault.Validation
		switch {
		case errors.As(err, &pv):
			v.Problems = append(v.Problems, pv.Problems...)
		case err != nil:
			return nil, err
		}
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
