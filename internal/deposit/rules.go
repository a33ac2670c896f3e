package deposit

import (
	"math"
	"slices"
	"time"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/models"
)

// verdict is what a finalized transaction answering a request is worth.
type verdict struct {
	state models.DepositTransferState // CREDITED or REFUSED
	// amount is what arrived in the platform's account (credited when
	// CREDITED).
	amount models.USDC
	issue  *models.DepositIssue
	late   bool
}

// destination is where a request's USDC must land.
type destination struct {
	wallet, mint, account solana.PublicKey
}

// judge decides what r, a finalized transaction found under d's
// reference, credits: what arrived, the rise of the platform's USDC
// account's balance across it, never what its instructions claim.
//
//   - It failed on chain: REFUSED, FAILED_ON_CHAIN (nothing moved).
//   - It does not name the reference: REFUSED, NOTHING_ARRIVED (the node
//     listed it under the reference, but it is not an answer).
//   - The platform's USDC account rose: CREDITED with the rise; UNDERPAID
//     or OVERPAID when d asked another amount.
//   - Otherwise REFUSED: WRONG_MINT when another token of the platform's
//     wallet rose, NOTHING_ARRIVED when the platform's USDC account is in
//     it but did not rise, WRONG_DESTINATION when it is not in it at all
//     (a transfer to another account that names the reference).
//
// It is late when its block came after d expired (or, with no block
// time, when it was seen after).
func judge(r *solana.Receipt, d *models.Deposit, to destination, seenAt time.Time) verdict {
	when := seenAt
	if r.BlockTime != nil {
		when = *r.BlockTime
	}
	v := verdict{state: models.DepositTransferRefused, late: when.After(d.ExpiresAt)}
	refuse := func(i models.DepositIssue) verdict {
		v.issue = &i
		return v
	}
	if r.Err != "" {
		return refuse(models.DepositFailedOnChain)
	}
	ref, err := solana.ParseMint(d.Reference)
	if err != nil || !slices.Contains(r.AccountKeys, ref) {
		return refuse(models.DepositNothingArrived)
	}
	var (
		inIt      bool
		otherMint bool
	)
	for _, t := range r.Tokens {
		switch {
		case t.Account == to.account && t.Mint == to.mint:
			inIt = true
			if t.Post > t.Pre && t.Post-t.Pre <= math.MaxInt64 {
				v.amount += models.USDC(t.Post - t.Pre)
			}
		case t.Owner == to.wallet && t.Mint != to.mint && t.Post > t.Pre:
			otherMint = true
		}
	}
	switch {
	case v.amount > 0:
		v.state = models.DepositTransferCredited
		if d.Amount != nil && v.amount < *d.Amount {
			i := models.DepositUnderpaid
			v.issue = &i
		} else if d.Amount != nil && v.amount > *d.Amount {
			i := models.DepositOverpaid
			v.issue = &i
		}
		return v
	case otherMint:
		return refuse(models.DepositWrongMint)
	case inIt:
		return refuse(models.DepositNothingArrived)
	default:
		return refuse(models.DepositWrongDestination)
	}
}
