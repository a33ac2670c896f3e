package deposit

import (
	"context"
	"fmt"
	"strconv"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/models"
)

// Notification kinds deposits send a customer; the SPA translates each.
const (
	// KindCredited: a transfer was credited, as asked (or to an open
	// request).
	KindCredited = "deposit.credited"
	// KindCreditedOtherAmount: a transfer brought another amount than
	// asked; what arrived was credited.
	KindCreditedOtherAmount = "deposit.credited_other_amount"
	// KindCreditedLate: a transfer arrived after its request expired;
	// what arrived was credited all the same.
	KindCreditedLate = "deposit.credited_late"
	// KindRefused: a transaction naming the request credited nothing
	// (params.issue says why).
	KindRefused = "deposit.refused"
)

// notify tells d's customer, in tx, what t (just settled) came to.
func (s *Service) notify(ctx context.Context, tx bun.Tx, d *models.Deposit, t *models.DepositTransfer) error {
	if s.deps.Notify == nil {
		return nil
	}
	params := map[string]string{"depositId": strconv.FormatInt(d.ID, 10), "amount": t.Amount.String(), "signature": t.Signature}
	n := &models.Notification{UserID: d.UserID, Params: params}
	switch {
	case t.State == models.DepositTransferRefused:
		issue := string(*t.Issue)
		params["issue"] = issue
		n.Kind, n.Title = KindRefused, "A deposit transfer was not credited"
		n.Body = fmt.Sprintf("Transaction %s names your deposit request %d but credits nothing (%s): %s. Nothing was taken from your balance.",
			t.Signature, d.ID, issue, refusalText[*t.Issue])
	case t.Late:
		n.Kind, n.Title = KindCreditedLate, "A late deposit was credited"
		n.Body = fmt.Sprintf("%s USDC arrived after deposit request %d expired and were credited to your balance all the same.", t.Amount, d.ID)
	case t.Issue != nil && d.Amount != nil:
		params["asked"] = d.Amount.String()
		n.Kind, n.Title = KindCreditedOtherAmount, "A deposit of another amount was credited"
		n.Body = fmt.Sprintf("Deposit request %d asked for %s USDC; %s USDC arrived and were credited to your balance.", d.ID, *d.Amount, t.Amount)
	default:
		n.Kind, n.Title = KindCredited, "Deposit credited"
		n.Body = fmt.Sprintf("%s USDC arrived on Solana and were credited to your balance.", t.Amount)
	}
	return s.deps.Notify.Add(ctx, tx, n)
}

// refusalText says in English why a transfer credits nothing.
var refusalText = map[models.DepositIssue]string{
	models.DepositFailedOnChain:    "the transaction failed on chain, so nothing moved",
	models.DepositWrongMint:        "it moved another token than USDC",
	models.DepositWrongDestination: "it paid another account than the platform's",
	models.DepositNothingArrived:   "no USDC arrived in the platform's account",
	models.DepositNeverFinalized:   "it was seen on a fork the network dropped and can no longer land, so nothing moved",
}
