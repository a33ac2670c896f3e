package platform_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

const creditFunds = `mutation($i: CreditFundsInput!) { creditFunds(input: $i) { balance userErrors { field code } } }`

type creditAnswer struct {
	CreditFunds struct {
		Balance    *string
		UserErrors []fieldCode
	}
}

// Funds over GraphQL: only admins credit, once per reference, with coded
// errors naming the field; a customer reads its balance.
func TestFundsAreCreditedByAdminsOnceAndReadByTheirOwner(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		admin := adminClient(t, s, "Ada")
		email := platformtest.UniqueEmail("payer")
		c := s.NewAPIClient(t, "")
		c.SignUp(email, "correct horse battery", "Payer")
		u, err := s.Platform.Auth.UserByEmail(context.Background(), email)
		require.NoError(t, err)
		id := strconv.FormatInt(u.ID, 10)

		var ans creditAnswer
		admin.MustDo(&ans, creditFunds, map[string]any{"i": map[string]any{"userId": id, "amount": "25.5", "reference": "wire 001", "reason": "wire received"}})
		require.Empty(t, ans.CreditFunds.UserErrors)
		require.Equal(t, "25.500000", *ans.CreditFunds.Balance)
		admin.MustDo(&ans, creditFunds, map[string]any{"i": map[string]any{"userId": id, "amount": "1", "reference": "wire 001", "reason": "again"}})
		require.Equal(t, []fieldCode{{"input.reference", "DUPLICATE"}}, ans.CreditFunds.UserErrors)
		admin.MustDo(&ans, creditFunds, map[string]any{"i": map[string]any{"userId": id, "amount": "0", "reference": ""}})
		require.ElementsMatch(t, []fieldCode{{"input.amount", "OUT_OF_RANGE"}, {"input.reference", "REQUIRED"}, {"input.reason", "REQUIRED"}}, ans.CreditFunds.UserErrors)
		res := admin.Do(creditFunds, map[string]any{"i": map[string]any{"userId": id, "amount": "1.0000001", "reference": "x"}})
		require.Equal(t, []string{"BAD_USER_INPUT"}, res.Codes())
		require.Equal(t, "input.amount", res.Errors[0].Extensions["field"])

		res = c.Do(creditFunds, map[string]any{"i": map[string]any{"userId": id, "amount": "100", "reference": "self"}})
		require.Equal(t, []string{"FORBIDDEN"}, res.Codes(), "a customer cannot credit itself")
		res = s.NewAPIClient(t, "").Do(`{ myFunds { balance } }`, nil)
		require.Equal(t, []string{"UNAUTHENTICATED"}, res.Codes())

		var funds struct {
			MyFunds struct{ Balance, PerHour string }
		}
		c.MustDo(&funds, `{ myFunds { balance perHour runsOutAt } }`, nil)
		require.Equal(t, []string{"25.500000", "0.000000"}, []string{funds.MyFunds.Balance, funds.MyFunds.PerHour}, "nothing refused changed it")
	})
}

const setPayoutMethod = `mutation($i: SetPayoutMethodInput!) { setPayoutMethod(input: $i) {
  method { schedule kind solanaAddress ibanMasked bic accountHolder holdUntil } userErrors { field code } } }`

type payoutMethodAnswer struct {
	SetPayoutMethod struct {
		Method *struct {
			Schedule, Kind            string
			SolanaAddress, IbanMasked *string
			Bic, AccountHolder        *string
			HoldUntil                 string
		}
		UserErrors []fieldCode
	}
}

// A provider's payout method and earnings over GraphQL: the password
// again, addresses and IBANs checked, the next payout shown; earnings are
// the provider's and admins' only; bad ranges are coded errors.
func TestPayoutMethodAndEarningsOverGraphQL(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "payee")
		wallet := solana.NewKey().PublicKey().String()
		var ans payoutMethodAnswer
		p.User.MustDo(&ans, setPayoutMethod, map[string]any{"i": map[string]any{"schedule": "WEEKLY", "solanaAddress": wallet, "password": "nope"}})
		require.Equal(t, []fieldCode{{"input.password", "INVALID_CREDENTIALS"}}, ans.SetPayoutMethod.UserErrors)
		p.User.MustDo(&ans, setPayoutMethod, map[string]any{"i": map[string]any{"schedule": "WEEKLY", "solanaAddress": solana.USDCMint.String(),
			"password": "correct horse battery"}})
		require.Equal(t, []fieldCode{{"input.solanaAddress", "WALLET_IS_MINT"}}, ans.SetPayoutMethod.UserErrors, "the mint is no wallet")
		p.User.MustDo(&ans, setPayoutMethod, map[string]any{"i": map[string]any{"schedule": "WEEKLY", "solanaAddress": "0x52908400098527886E0F7030069857D2E4169EE7",
			"password": "nope"}})
		require.ElementsMatch(t, []fieldCode{{"input.solanaAddress", "WALLET_ETHEREUM"}, {"input.password", "INVALID_CREDENTIALS"}}, ans.SetPayoutMethod.UserErrors,
			"every problem in one answer")
		p.User.MustDo(&ans, setPayoutMethod, map[string]any{"i": map[string]any{"schedule": "MONTHLY", "iban": "GB29NWBK60161331926818",
			"bic": "NWBKGB2L", "accountHolder": "Payee Ltd", "password": "correct horse battery"}})
		require.Equal(t, []fieldCode{{"input.iban", "INVALID"}}, ans.SetPayoutMethod.UserErrors, "a bad checksum")
		var none struct {
			MyProvider struct{ PayoutMethod *struct{ Kind string } }
		}
		p.User.MustDo(&none, `{ myProvider { payoutMethod { kind } } }`, nil)
		require.Nil(t, none.MyProvider.PayoutMethod, "nothing refused was stored")

		p.User.MustDo(&ans, setPayoutMethod, map[string]any{"i": map[string]any{"schedule": "MONTHLY", "iban": "GB29 NWBK 6016 1331 9268 19",
			"bic": "NWBKGB2L", "accountHolder": "Payee Ltd", "password": "correct horse battery"}})
		require.Empty(t, ans.SetPayoutMethod.UserErrors)
		m := ans.SetPayoutMethod.Method
		require.Equal(t, []string{"MONTHLY", "BANK", "GB••••••••••••••••6819"}, []string{m.Schedule, m.Kind, *m.IbanMasked})

		var view struct {
			MyProvider struct {
				NextPayout *struct {
					DueAt, Threshold string
					ThresholdMet     bool
					HeldUntil        *string
				}
				Earnings struct {
					Period           struct{ Kind, Net string }
					AvailableBalance string
				}
			}
		}
		p.User.MustDo(&view, `{ myProvider { nextPayout { dueAt threshold thresholdMet heldUntil } earnings { period { kind net } availableBalance } } }`, nil)
		require.NotNil(t, view.MyProvider.NextPayout)
		require.NotNil(t, view.MyProvider.NextPayout.HeldUntil, "a new destination cools off")
		require.False(t, view.MyProvider.NextPayout.ThresholdMet, "nothing earned")
		require.Equal(t, "MONTHLY", view.MyProvider.Earnings.Period.Kind, "the period follows the schedule")

		const history = `query($f: DateTime!, $t: DateTime!, $g: EarningsGrouping!) { myProvider { earnings { history(from: $f, to: $t, groupBy: $g) { start net } } } }`
		now := time.Now().UTC()
		res := p.User.Do(history, map[string]any{"f": now.Format(time.RFC3339), "t": now.Add(-time.Hour).Format(time.RFC3339), "g": "DAY"})
		require.Equal(t, []string{"BAD_USER_INPUT"}, res.Codes())
		require.Contains(t, res.Errors[0].Message, "to")
		res = p.User.Do(history, map[string]any{"f": now.AddDate(-3, 0, 0).Format(time.RFC3339), "t": now.Format(time.RFC3339), "g": "HOUR"})
		require.Equal(t, []string{"BAD_USER_INPUT"}, res.Codes(), "more than 10,000 buckets")
		var days struct {
			MyProvider struct {
				Earnings struct{ History []struct{ Start, Net string } }
			}
		}
		p.User.MustDo(&days, history, map[string]any{"f": now.AddDate(0, 0, -7).Format(time.RFC3339), "t": now.Format(time.RFC3339), "g": "DAY"})
		require.Len(t, days.MyProvider.Earnings.History, 8, "every day, empty ones included")

		// Someone else: no provider of theirs, and no way to another's.
		other := customer(t, s, "nosy")
		var theirs struct{ MyProvider *struct{ ID string } }
		other.MustDo(&theirs, `{ myProvider { id } }`, nil)
		require.Nil(t, theirs.MyProvider)
		res = other.Do(`subscription { earningsUpdated { availableBalance } }`, nil)
		require.NotEmpty(t, res.Codes())
	})
}
