package e2e_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"syscall"
	"time"

	solana "github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
)

// The payout side of the soak: the replicas pay providers in USDC through
// a Solana JSON-RPC double (solanatest, in this process, over loopback
// HTTP) with the platform's key, every provider has a wallet as its payout
// method, and the payout-leader-kill drill asks every provider to be paid
// and kills the replica leading the payout runs while a transfer is on its
// way: sent, its confirmation held back by the node. The check then holds
// the payouts against the chain: each paid exactly once, no transfer sent
// twice, none without its payout.

// payoutLease is the background task that makes and sends payouts.
const payoutLease = "billing-payouts"

// startChain starts the node double and returns the replicas' flags that
// pay through it: payouts to a new wallet wait no cooling-off, any balance
// is paid, and payout runs come every two seconds, so that the drill's
// payouts are made and sent within the run.
func (s *soak) startChain() []string {
	t := s.t
	platform, err := solana.NewRandomPrivateKey()
	require.NoError(t, err)
	s.node = solanatest.New(t, solanatest.Config{Payer: platform.PublicKey()})
	keyFile, err := solanatest.WriteKeyFile(s.dir, platform)
	require.NoError(t, err)
	return []string{"--solana-rpc-url", s.node.URL(), "--solana-key-file", keyFile,
		"--payout-cooling-off", "1ms", "--payout-threshold", "0.000001", "--payout-every", "2s"}
}

// setPayoutMethod makes a fresh wallet p's payout method, as the provider
// does on the Funds page (the password asked again).
func (s *soak) setPayoutMethod(c *gql, p *soakProvider) {
	wallet, err := solana.NewRandomPrivateKey()
	require.NoError(s.t, err)
	p.wallet = wallet.PublicKey().String()
	s.change(c, `mutation($a: String!) { setPayoutMethod(input: {schedule: WEEKLY, solanaAddress: $a, password: "correct horse battery"}) { userErrors { field code } } }`,
		map[string]any{"a": p.wallet})
}

// leaderOf is the replica holding the lease name now (nil when none does):
// the advisory lock of the soak's schema (store.DB.LeaseKey) in the soak's
// database, held by a session one of its replicas named.
func (s *soak) leaderOf(name string) *replica {
	key := s.db.LeaseKey(name)
	var apps []string
	err := s.db.NewRaw(`SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND CAST(l.classid AS BIGINT) = ? AND CAST(l.objid AS BIGINT) = ?
		AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
		int64(uint32(uint64(key)>>32)), int64(uint32(key))).Scan(context.Background(), &apps)
	if err != nil {
		return nil
	}
	for _, r := range s.replicas {
		if slices.Contains(apps, r.appName) {
			return r
		}
	}
	return nil
}

// openPayouts counts the payouts among ids not yet paid or failed.
func (s *soak) openPayouts(ids []string) int {
	var states []string
	if err := s.db.NewSelect().Table("payouts").Column("state").Where("CAST(id AS TEXT) IN (?)", bun.List(ids)).
		Scan(context.Background(), &states); err != nil {
		return len(ids)
	}
	open := len(ids) - len(states)
	for _, st := range states {
		if st == "PENDING" || st == "PROCESSING" {
			open++
		}
	}
	return open
}

// killMidPayout is the payout-leader-kill drill, up to the kill: the node
// will hold the next transfer's confirmation back ("processed") until the
// drill lets it land, and drop the one after (accepted, never landed:
// only sending the same bytes again lands it); every provider asks to be
// paid its balance; once the node holds a transfer (sent, unconfirmed),
// the replica leading the payout runs is killed (SIGKILL) and started
// again. It returns the payouts made and the held transaction's signature
// and status lookups so far.
func (s *soak) killMidPayout(rep *drillReport) (made []string, held string, lookups int) {
	t := s.t
	s.node.Delay(math.MaxInt32)
	s.node.Drop()
	rep.PayoutAnswers = map[string]int{}
	for i, p := range s.providers {
		c := s.client("http://"+s.front.Addr(), p.token, fmt.Sprintf("198.51.100.%d", 2+i%250))
		var rp struct {
			RequestPayout struct {
				Payout     *struct{ ID string }
				UserErrors []struct{ Field, Code string }
			}
		}
		a := c.do(context.Background(), `mutation { requestPayout { payout { id } userErrors { field code } } }`, nil)
		if err := a.into(&rp); err != nil {
			rep.PayoutAnswers[outcomeOf(a)]++
			continue
		}
		switch {
		case rp.RequestPayout.Payout != nil:
			rep.PayoutAnswers["made"]++
			made = append(made, rp.RequestPayout.Payout.ID)
		case len(rp.RequestPayout.UserErrors) > 0:
			ue := rp.RequestPayout.UserErrors[0]
			rep.PayoutAnswers[ue.Field+" "+ue.Code]++
		}
	}
	// Two at least, so that the dropped transfer is one of them.
	require.GreaterOrEqual(t, len(made), 2, "too few providers had a balance to be paid: %v", rep.PayoutAnswers)
	await.True(t, func() bool { return len(s.node.Held()) > 0 }, "no payout's transfer was sent")
	held = s.node.Held()[0]
	r := s.leaderOf(payoutLease)
	require.NotNil(t, r, "a replica leads the payout runs")
	rep.Replica = r.name
	s.stopReplica(r, syscall.SIGKILL)
	lookups = s.node.Lookups(held)
	s.startReplica(r)
	return made, held, lookups
}

// payoutsPaid finishes the payout-leader-kill drill: once the payout runs
// have asked the chain about the held transaction twice more since the
// kill (the new leader found it in flight), the node lets it land; then
// every payout made must be paid or failed, and the held one paid under
// the signature it was sent with (a payout rebuilt and sent again would
// carry a new one; a second transfer with its memo is the check's to
// find).
func (s *soak) payoutsPaid(rep *drillReport, made []string, held string, lookups int, ended time.Time) {
	t := s.t
	await.True(t, func() bool { return s.node.Lookups(held) >= lookups+2 }, "the payout runs never looked at the sent transaction again after the kill")
	s.node.Confirm()
	await.True(t, func() bool { return s.openPayouts(made) == 0 }, lazy(func() string {
		return fmt.Sprintf("%d of %d payouts are still open after the payout leader's kill", s.openPayouts(made), len(made))
	}))
	rep.PayoutsSettledSeconds = time.Since(ended).Seconds()
	state := ""
	_ = s.db.NewSelect().Table("payouts").Column("state").Where("signature = ?", held).Scan(context.Background(), &state)
	require.Equal(t, "PAID", state, "the payout whose transfer was held is paid under the signature it was sent with")
}

// payoutProblems holds every Solana payout against the chain's transfers:
// each PAID payout landed once, to its wallet, for its amount, under its
// signature; no signature or memo landed twice; no transfer without a
// paid payout; none left unpaid; and its ledger moved its amount out of
// earnings once and into paid-out once.
func (s *soak) payoutProblems() []string {
	type payout struct {
		ID          int64
		Amount      int64 `bun:"amount_micros"`
		Destination string
		State       string
		Reference   string
		Signature   *string
	}
	var ps []payout
	if err := s.db.NewSelect().Table("payouts").Column("id", "amount_micros", "destination", "state", "reference", "signature").
		Where("kind = 'SOLANA'").Order("id").Scan(context.Background(), &ps); err != nil {
		return []string{"the check could not run: " + err.Error()}
	}
	var problems []string
	byMemo := map[string]int{}
	transfers := map[string]solanatest.Transfer{}
	for _, tr := range s.node.Transfers() {
		byMemo[tr.Memo]++
		transfers[tr.Signature] = tr
	}
	paid := map[string]bool{}
	for _, p := range ps {
		switch {
		case p.State != "PAID":
			problems = append(problems, fmt.Sprintf("payout %d is %s", p.ID, p.State))
		case p.Signature == nil:
			problems = append(problems, fmt.Sprintf("payout %d is paid without a transaction", p.ID))
		default:
			tr, ok := transfers[*p.Signature]
			paid[*p.Signature] = true
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("payout %d is paid but its transaction never landed", p.ID))
			case tr.Recipient.String() != p.Destination || int64(tr.Amount) != p.Amount:
				problems = append(problems, fmt.Sprintf("payout %d of %d to %s landed as %d to %s", p.ID, p.Amount, p.Destination, tr.Amount, tr.Recipient))
			case byMemo[tr.Memo] != 1:
				problems = append(problems, fmt.Sprintf("payout %d's memo %q landed %d times", p.ID, tr.Memo, byMemo[tr.Memo]))
			}
		}
	}
	// (The node lands a signature once however often it is sent: a payout
	// paid twice shows as a second signature with the same memo.)
	for sig := range transfers {
		if !paid[sig] {
			problems = append(problems, fmt.Sprintf("transfer %s of %d to %s is no paid payout's", sig, transfers[sig].Amount, transfers[sig].Recipient))
		}
	}
	var ledger []string
	if err := s.db.NewRaw(`SELECT 'payout ' || CAST(p.id AS TEXT) || ' posted PAYOUT ' || CAST(out.n AS TEXT) || ' and PAYOUT_PAID ' || CAST(paid.n AS TEXT) || ' times'
		FROM payouts p,
		LATERAL (SELECT COUNT(*) AS n FROM ledger_transactions t WHERE t.payout_id = p.id AND t.kind = 'PAYOUT') out,
		LATERAL (SELECT COUNT(*) AS n FROM ledger_transactions t WHERE t.payout_id = p.id AND t.kind = 'PAYOUT_PAID') paid
		WHERE p.kind = 'SOLANA' AND p.state = 'PAID' AND (out.n <> 1 OR paid.n <> 1)`).Scan(context.Background(), &ledger); err != nil {
		ledger = []string{"the ledger check could not run: " + err.Error()}
	}
	problems = append(problems, ledger...)
	var inFlight []string
	if err := s.db.NewRaw(`SELECT CAST(owner_id AS TEXT) || ' holds ' || CAST(balance_micros AS TEXT) FROM ledger_accounts
		WHERE kind = 'PAYOUTS_IN_FLIGHT' AND balance_micros <> 0`).Scan(context.Background(), &inFlight); err != nil {
		inFlight = []string{"the in-flight check could not run: " + err.Error()}
	}
	for _, f := range inFlight {
		problems = append(problems, "payouts in flight of provider "+f)
	}
	slices.Sort(problems)
	return problems
}
