package billing

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/models"
)

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
