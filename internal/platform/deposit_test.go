package platform_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/internal/deposit"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// depositServer is a server of stack whose Solana node is a solanatest
// double, the platform's USDC account open on it. The follow-up's
// interval is the longest there is, so the test drives it (Deposits.Run)
// after the one run at start.
func depositServer(t *testing.T, stack platformtest.Stack) (*platformtest.Server, *solanatest.Server) {
	t.Helper()
	payer := solana.NewKey()
	node := solanatest.New(t, solanatest.Config{Payer: payer.PublicKey()})
	node.Fund(payer.PublicKey(), solanatest.USDCMint, 0)
	c, err := solana.New(solana.Config{RPCURL: node.URL(), Payer: payer})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return platformtest.Start(t, stack, platformtest.Options{Solana: c, Deposit: deposit.Config{FollowEvery: deposit.MaxFollowEvery}}), node
}

const createDeposit = `mutation($i: CreateDepositInput!) { createDeposit(input: $i) {
  deposit { id state amount payment { url recipient mint amount reference label } }
  userErrors { field code } } }`

const depositFields = `id state amount credited transfers { signature state amount late issue explorerUrl }`

type depositView struct {
	ID, State string
	Amount    *string
	Credited  string
	Transfers []struct {
		Signature, State, Amount, ExplorerURL string
		Late                                  bool
		Issue                                 *string
	}
}

// Issue 26 over the API, on both stacks: a customer reads the terms,
// creates a deposit request (bad amounts refused naming the field), pays
// it from a wallet, and its subscription shows it waiting, seen and
// credited; the balance and the bell follow; nobody else sees it.
func TestDepositOverTheAPIIsSeenAndCreditedLive(t *testing.T) {
	t.Parallel()
	for _, stack := range platformtest.Stacks {
		t.Run(stack.Name, func(t *testing.T) {
			t.Parallel()
			s, node := depositServer(t, stack)
			ctx := context.Background()
			c := customer(t, s, "depositor")
			var terms struct {
				DepositTerms struct {
					Available        bool
					Minimum, Maximum string
					ExpiresInSeconds int
				}
			}
			c.MustDo(&terms, `{ depositTerms { available minimum maximum expiresInSeconds } }`, nil)
			require.True(t, terms.DepositTerms.Available)
			require.Equal(t, "0.010000", terms.DepositTerms.Minimum)
			require.Equal(t, 1800, terms.DepositTerms.ExpiresInSeconds)
			var funds struct{ MyFunds struct{ Balance string } }
			c.MustDo(&funds, `{ myFunds { balance } }`, nil)
			before, err := models.ParseUSDC(funds.MyFunds.Balance)
			require.NoError(t, err)

			ws, _, err := s.DialWS(t, nil)
			require.NoError(t, err)
			ws.Init(map[string]any{"authorization": "Bearer " + c.Token})
			ws.Subscribe("1", `subscription { depositUpdated { `+depositFields+` } }`, nil)
			// next is the next view that differs from the one before: the
			// follow-up the platform's leader runs at its start may look
			// at the request beside the test's own runs, and a change it
			// announces can be loaded after the test's.
			var last *depositView
			next := func() depositView {
				t.Helper()
				for {
					m := ws.MustRead(10 * time.Second)
					require.Equal(t, "next", m.Type, "%s", m.Payload)
					var ev struct {
						Data   struct{ DepositUpdated depositView }
						Errors []any
					}
					require.NoError(t, json.Unmarshal(m.Payload, &ev))
					require.Empty(t, ev.Errors, "%s", m.Payload)
					if last != nil && reflect.DeepEqual(*last, ev.Data.DepositUpdated) {
						continue
					}
					last = &ev.Data.DepositUpdated
					return ev.Data.DepositUpdated
				}
			}

			var bad struct {
				CreateDeposit struct {
					Deposit    *struct{ ID string }
					UserErrors []fieldCode
				}
			}
			c.MustDo(&bad, createDeposit, map[string]any{"i": map[string]any{"amount": "0.001"}})
			require.Nil(t, bad.CreateDeposit.Deposit)
			require.Equal(t, []fieldCode{{"input.amount", "OUT_OF_RANGE"}}, bad.CreateDeposit.UserErrors)

			var made struct {
				CreateDeposit struct {
					Deposit struct {
						ID, State string
						Amount    *string
						Payment   struct {
							URL, Recipient, Mint, Reference, Label string
							Amount                                 *string
						}
					}
					UserErrors []fieldCode
				}
			}
			c.MustDo(&made, createDeposit, map[string]any{"i": map[string]any{"amount": "12.5"}})
			require.Empty(t, made.CreateDeposit.UserErrors)
			d := made.CreateDeposit.Deposit
			require.Equal(t, "WAITING", d.State)
			require.Equal(t, solanatest.USDCMint.String(), d.Payment.Mint)
			require.Contains(t, d.Payment.URL, "solana:"+d.Payment.Recipient+"?amount=12.5&spl-token="+d.Payment.Mint+"&reference="+d.Payment.Reference+"&label=GPUnex")
			require.Equal(t, "WAITING", next().State)

			node.Hold()
			sig, err := node.NewWallet(t, 20*models.MicrosPerUSDC).Pay(ctx, d.Payment.URL)
			require.NoError(t, err)
			require.NoError(t, s.Platform.Deposits.Run(ctx))
			seen := next()
			require.Equal(t, "SEEN", seen.State)
			require.Equal(t, sig, seen.Transfers[0].Signature)
			require.Equal(t, "SEEN", seen.Transfers[0].State)

			node.Finalize(sig)
			require.NoError(t, s.Platform.Deposits.Run(ctx))
			credited := next()
			require.Equal(t, "CREDITED", credited.State)
			require.Equal(t, "12.500000", credited.Credited)
			require.Equal(t, "CREDITED", credited.Transfers[0].State)
			require.Equal(t, "https://explorer.solana.com/tx/"+sig, credited.Transfers[0].ExplorerURL)
			c.MustDo(&funds, `{ myFunds { balance } }`, nil)
			require.Equal(t, (before + 12_500_000).String(), funds.MyFunds.Balance)

			var bell struct {
				Notifications struct {
					Edges []struct{ Node struct{ Kind string } }
				}
			}
			c.MustDo(&bell, `{ notifications(first: 5) { edges { node { kind } } } }`, nil)
			require.Equal(t, deposit.KindCredited, bell.Notifications.Edges[0].Node.Kind)

			var mine struct{ MyDeposits []depositView }
			c.MustDo(&mine, `{ myDeposits { `+depositFields+` } }`, nil)
			require.Len(t, mine.MyDeposits, 1)
			require.Equal(t, "CREDITED", mine.MyDeposits[0].State)

			nosy := customer(t, s, "nosy")
			var theirs struct{ MyDeposits []depositView }
			nosy.MustDo(&theirs, `{ myDeposits { id } }`, nil)
			require.Empty(t, theirs.MyDeposits)
			res := nosy.Do(`query($id: ID!) { deposit(id: $id) { id } }`, map[string]any{"id": d.ID})
			require.Equal(t, []string{"NOT_FOUND"}, res.Codes(), "a customer sees only their own deposits")
			res = s.NewAPIClient(t, "").Do(createDeposit, map[string]any{"i": map[string]any{}})
			require.Equal(t, []string{"UNAUTHENTICATED"}, res.Codes())
		})
	}
}

// Without a Solana node the terms say deposits are unavailable and a
// request is refused with a coded user error.
func TestDepositsAreUnavailableWithoutASolanaNode(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		c := customer(t, s, "no-node")
		var terms struct{ DepositTerms struct{ Available bool } }
		c.MustDo(&terms, `{ depositTerms { available } }`, nil)
		require.False(t, terms.DepositTerms.Available)
		var ans struct {
			CreateDeposit struct {
				Deposit    *struct{ ID string }
				UserErrors []fieldCode
			}
		}
		c.MustDo(&ans, createDeposit, map[string]any{"i": map[string]any{"amount": "5"}})
		require.Nil(t, ans.CreateDeposit.Deposit)
		require.Equal(t, []fieldCode{{"input", "UNAVAILABLE"}}, ans.CreateDeposit.UserErrors)
	})
}

// Issue 26: an admin credits a bank transfer to the customer found by
// email, with the transfer's reference and a reason, kept on the posting;
// no reason, an unknown email or no customer at all are coded user
// errors naming the field.
func TestAnAdminCreditsABankTransferByEmailWithAReason(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		admin := adminClient(t, s, "Ada")
		email := platformtest.UniqueEmail("wire")
		s.NewAPIClient(t, "").SignUp(email, "correct horse battery", "Wire")
		u, err := s.Platform.Auth.UserByEmail(context.Background(), email)
		require.NoError(t, err)
		const credit = `mutation($i: CreditFundsInput!) { creditFunds(input: $i) { userId balance userErrors { field code } } }`
		var ans struct {
			CreditFunds struct {
				UserID, Balance *string
				UserErrors      []fieldCode
			}
		}
		admin.MustDo(&ans, credit, map[string]any{"i": map[string]any{"email": email, "amount": "40", "reference": "SEPA 2026-12-07 #1"}})
		require.Equal(t, []fieldCode{{"input.reason", "REQUIRED"}}, ans.CreditFunds.UserErrors)
		admin.MustDo(&ans, credit, map[string]any{"i": map[string]any{"email": "nobody@example.com", "amount": "40", "reference": "r", "reason": "x"}})
		require.Equal(t, []fieldCode{{"input.email", "INVALID"}}, ans.CreditFunds.UserErrors)
		admin.MustDo(&ans, credit, map[string]any{"i": map[string]any{"amount": "40", "reference": "r", "reason": "x"}})
		require.Equal(t, []fieldCode{{"input.email", "REQUIRED"}}, ans.CreditFunds.UserErrors)

		admin.MustDo(&ans, credit, map[string]any{"i": map[string]any{"email": email, "amount": "40", "reference": "SEPA 2026-12-07 #1",
			"reason": "Bank transfer received on 7 December"}})
		require.Empty(t, ans.CreditFunds.UserErrors)
		require.Equal(t, strconv.FormatInt(u.ID, 10), *ans.CreditFunds.UserID)
		require.Equal(t, "40.000000", *ans.CreditFunds.Balance)
		var posted models.LedgerTransaction
		require.NoError(t, s.Platform.DB.NewSelect().Model(&posted).Where("kind = ? AND reference = ?", models.TxDeposit, "SEPA 2026-12-07 #1").Scan(context.Background()))
		require.Equal(t, "Bank transfer received on 7 December", *posted.Note)
		require.NotNil(t, posted.ActorID, "the admin who credited is kept")
	})
}
