package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Money end to end, with the real server and agent binaries: a customer
// with funds rents the GPU of a simulated agent; the provider's
// earningsUpdated subscription (on the other replica, on PostgreSQL and
// Redis) ticks as the rental is metered; the rental stops; the provider
// asks to be paid now and the payout run pays it in USDC through a Solana
// JSON-RPC node (an in-process one that checks every transaction), and the
// provider's payout history shows the signature.
func TestARentalIsMeteredStreamedAndPaidOutInUSDC(t *testing.T) {
	t.Parallel()
	serverBin, agentBin := binaries(t)
	for _, stack := range []string{"sqlite+memory", "postgres+redis"} {
		t.Run(stack, func(t *testing.T) {
			t.Parallel()
			priv, err := solanago.NewRandomPrivateKey()
			require.NoError(t, err)
			node := solanatest.New(t, solanatest.Config{Payer: priv.PublicKey()})
			keyFile := filepath.Join(t.TempDir(), "payer.json")
			bytes := make([]int, len(priv))
			for i, b := range priv {
				bytes[i] = int(b)
			}
			raw, err := json.Marshal(bytes)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(keyFile, raw, 0o600))

			extra := []string{"--solana-rpc-url", node.URL(), "--solana-key-file", keyFile, "--payout-cooling-off", "1ns",
				"--payout-threshold", "0.000001", "--metering-every", "1s", "--payout-every", "1s"}
			var replica []string
			if stack == "postgres+redis" {
				rs := redistest.Start(t, 0)
				replica = []string{"--database-url", storetest.PostgresURL(t), "--redis-url", rs.URL(), "--redis-prefix", "e2e:"}
				extra = append(extra, replica...)
			}
			_, url := serve(t, serverBin, extra...)
			srv := &platformtest.Server{URL: url}
			watch := srv // where the provider's dashboard subscribes
			if replica != nil {
				_, other := serve(t, serverBin, extra...)
				watch = &platformtest.Server{URL: other}
			}
			provider, agentToken := demoAgentToken(t, srv)
			provider.MustDo(nil, `mutation { setGpuPrice(input: {model: "H100_SXM_80GB", pricePerHour: "36.000000"}) { userErrors { field } } }`, nil)
			wallet := solana.NewKey().PublicKey().String()
			var pm struct {
				SetPayoutMethod struct {
					Method     *struct{ Kind, SolanaAddress string }
					UserErrors []struct{ Field, Code string }
				}
			}
			const setMethod = `mutation($w: String!, $p: String!) { setPayoutMethod(input: {schedule: MONTHLY, solanaAddress: $w, password: $p}) {
				method { kind solanaAddress } userErrors { field code } } }`
			provider.MustDo(&pm, setMethod, map[string]any{"w": wallet, "p": "wrong password"})
			require.Equal(t, "input.password", pm.SetPayoutMethod.UserErrors[0].Field, "the password is asked again")
			provider.MustDo(&pm, setMethod, map[string]any{"w": wallet, "p": "gpunex-demo"})
			require.Empty(t, pm.SetPayoutMethod.UserErrors)
			require.Equal(t, "SOLANA", pm.SetPayoutMethod.Method.Kind)

			startWithEnv(t, []string{"GPUNEX_TOKEN=" + agentToken}, agentBin, "--server", url, "--data-dir", t.TempDir(),
				"--simulate", "1xH100", "--hostname", "paid-host")
			customer := srv.NewAPIClient(t, "")
			var li struct{ LogIn struct{ Token *string } }
			customer.MustDo(&li, `mutation { logIn(input: {email: "customer@gpunex.demo", password: "gpunex-demo"}) { token } }`, nil)
			customer.Token = *li.LogIn.Token
			var listingID string
			await.True(t, func() bool {
				for _, l := range listings(t, customer) {
					if l.Simulated && l.GpuCount == 1 {
						listingID = l.ID
						return true
					}
				}
				return false
			}, "the agent's GPU is listed")

			// The provider's dashboard follows its earnings on the other replica.
			ws, _, err := watch.DialWS(t, nil)
			require.NoError(t, err)
			ws.Init(map[string]any{"authorization": "Bearer " + provider.Token})
			ws.Subscribe("1", `subscription { earningsUpdated { asOf accrualPerHour period { net } availableBalance
				byGpu { hostname gpuIndex gpuUuid modelKey model { name } net } } }`, nil)
			type earnings struct {
				AccrualPerHour, AvailableBalance string
				Period                           struct{ Net string }
				ByGpu                            []struct {
					Hostname, GpuUUID, ModelKey, Net string
					GpuIndex                         int
					Model                            *struct{ Name string }
				}
			}
			next := func() earnings {
				m := ws.MustRead(30 * time.Second)
				require.Equal(t, "next", m.Type, "%s", m.Payload)
				var ev struct {
					Data struct{ EarningsUpdated earnings }
				}
				require.NoError(t, json.Unmarshal(m.Payload, &ev))
				return ev.Data.EarningsUpdated
			}
			first := next()

			var started struct {
				StartRental struct {
					Rental     *struct{ ID string }
					UserErrors []struct{ Field, Code string }
				}
			}
			customer.MustDo(&started, `mutation($l: ID!) { startRental(input: {listingId: $l, gpuCount: 1, image: "busybox",
				command: ["sh", "-c", "exec sleep 300"]}) { rental { id } userErrors { field code } } }`, map[string]any{"l": listingID})
			require.Empty(t, started.StartRental.UserErrors)

			// Metered every second at 36 USDC/h (0.01 a second): the
			// dashboard sees the total grow, with the accrual rate.
			usdc := func(s string) models.USDC {
				v, err := models.ParseUSDC(s)
				require.NoError(t, err)
				return v
			}
			var grown earnings
			await.True(t, func() bool {
				grown = next()
				return usdc(grown.Period.Net) > usdc(first.Period.Net)
			}, "earningsUpdated shows the rental's earnings")
			require.Equal(t, "30.600000", grown.AccrualPerHour, "36 USDC/h less the 15 % fee")
			// The GPU that earned it, as the provider names it: the machine's
			// hostname, the GPU's index on it and the model's display name.
			await.True(t, func() bool {
				for _, g := range grown.ByGpu {
					if g.Hostname == "paid-host" {
						require.Equal(t, 0, g.GpuIndex)
						require.Equal(t, "H100_SXM_80GB", g.ModelKey)
						require.NotNil(t, g.Model)
						require.Equal(t, catalog.ByKey("H100_SXM_80GB").Name, g.Model.Name)
						return true
					}
				}
				grown = next()
				return false
			}, "the rented GPU is listed among the earnings by GPU")

			var stopped struct {
				StopRental struct{ UserErrors []struct{ Field string } }
			}
			customer.MustDo(&stopped, `mutation($id: ID!) { stopRental(id: $id) { userErrors { field } } }`, map[string]any{"id": started.StartRental.Rental.ID})
			require.Empty(t, stopped.StopRental.UserErrors)

			// The provider asks to be paid now (its monthly payout is due on
			// the first business day of next month, for this month); the new
			// wallet's cooling-off (1 ns here) passed while the rental ran.
			var req struct {
				RequestPayout struct {
					Payout     *struct{ State string }
					UserErrors []struct{ Field, Code string }
				}
			}
			provider.MustDo(&req, `mutation { requestPayout { payout { state } userErrors { field code } } }`, nil)
			require.Empty(t, req.RequestPayout.UserErrors)
			require.Equal(t, "PENDING", req.RequestPayout.Payout.State)

			// The payout run pays it through the node, once.
			type payout struct {
				State, Amount, Reference  string
				Signature, TransactionURL *string
			}
			var paid payout
			await.True(t, func() bool {
				var out struct{ MyProvider struct{ Payouts []payout } }
				provider.MustDo(&out, `{ myProvider { payouts { state amount reference signature transactionUrl } } }`, nil)
				for _, p := range out.MyProvider.Payouts {
					if p.State == "PAID" && p.Signature != nil {
						paid = p
						return true
					}
				}
				return false
			}, "a payout is paid through the Solana node")
			transfers := node.Transfers()
			require.Len(t, transfers, 1)
			require.Equal(t, []any{wallet, usdc(paid.Amount), *paid.Signature, paid.Reference},
				[]any{transfers[0].Recipient.String(), transfers[0].Amount, transfers[0].Signature, transfers[0].Memo})
			require.GreaterOrEqual(t, usdc(paid.Amount), usdc(grown.Period.Net)-usdc(first.Period.Net), "the rental's earnings are paid")
			require.Contains(t, *paid.TransactionURL, *paid.Signature)
			require.Empty(t, node.Rejections())
		})
	}
}
