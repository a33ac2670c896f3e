package pricing

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// SetPrice sets the provider's hourly rate of one GPU model and appends
// it to the model's history; setting the rate it already has changes
// nothing. Problems come back as a *fault.Validation naming the field,
// with nothing changed. It returns the price with its history.
func (s *Service) SetPrice(ctx context.Context, providerID int64, in PriceInput) (*models.GpuPrice, error) {
	var v fault.Validation
	input := validate.At("input")
	key := strings.TrimSpace(in.Model)
	switch {
	case catalog.ByKey(key) == nil:
		v.Add(input.Field("model").String(), fault.UnknownModel, "choose a GPU model of the catalogue")
	default:
		has, err := s.hasModel(ctx, providerID, key)
		if err != nil {
			return nil, err
		}
		if !has {
			v.Add(input.Field("model").String(), fault.InvalidValue, "you have no GPUs of this model")
		}
	}
	floor, err := s.Floor(ctx, key)
	if err != nil {
		return nil, err
	}
	switch p := in.PricePerHour; {
	case p <= 0:
		v.Add(input.Field("pricePerHour").String(), fault.OutOfRange, "the price must be more than 0")
	case p > s.cfg.MaxPricePerHour:
		v.Add(input.Field("pricePerHour").String(), fault.OutOfRange, fmt.Sprintf("the price may be at most %s USDC per GPU per hour", s.cfg.MaxPricePerHour))
	case p < floor:
		v.Add(input.Field("pricePerHour").String(), fault.OutOfRange, fmt.Sprintf("the price must be at least %s USDC per GPU per hour for this model", floor))
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := s.deps.Clock.Now()
	price := &models.GpuPrice{ProviderID: providerID, ModelKey: key, PricePerHour: in.PricePerHour, UpdatedAt: now}
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var cur models.GpuPrice
		err := s.deps.DB.ForUpdate(tx.NewSelect().Model(&cur).Where("provider_id = ? AND model_key = ?", providerID, key)).Scan(ctx)
		switch {
		case err == nil && cur.PricePerHour == in.PricePerHour:
			*price = cur
			return nil
		case err != nil && !store.IsNoRows(err):
			return err
		}
		if _, err := tx.NewInsert().Model(price).On("CONFLICT (provider_id, model_key) DO UPDATE").
			Set("price_micros = EXCLUDED.price_micros, updated_at = EXCLUDED.updated_at").Exec(ctx); err != nil {
			return err
		}
		_, err = tx.NewInsert().Model(&models.GpuPriceChange{ProviderID: providerID, ModelKey: key, PricePerHour: in.PricePerHour, At: now}).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pricing: unable to set the price: %w", err)
	}
	if err := s.deps.DB.NewSelect().Model(&price.History).Where("provider_id = ? AND model_key = ?", providerID, key).
		OrderExpr("id DESC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("pricing: unable to load the price history: %w", err)
	}
	return price, nil
}

// hasModel reports whether the provider has GPUs of the model: on one of
// its machines, or in its approved application (so it can price before
// its agent runs).
func (s *Service) hasModel(ctx context.Context, providerID int64, key string) (bool, error) {
	onMachine := s.deps.DB.NewSelect().TableExpr("machine_gpus AS mg").Join("JOIN machines AS m ON m.id = mg.machine_id").
		ColumnExpr("1").Where("m.provider_id = ? AND mg.model_key = ?", providerID, key)
	applied := s.deps.DB.NewSelect().TableExpr("application_gpus AS ag").Join("JOIN providers AS p ON p.application_id = ag.application_id").
		ColumnExpr("1").Where("p.id = ? AND ag.model_key = ?", providerID, key)
	var n int
	err := s.deps.DB.NewSelect().ColumnExpr("CASE WHEN EXISTS (?) OR EXISTS (?) THEN 1 ELSE 0 END", onMachine, applied).Scan(ctx, &n)
	if err != nil {
		return false, fmt.Errorf("pricing: unable to check the provider's models: %w", err)
	}
	return n == 1, nil
}

// Prices lists the provider's current rates by model key, each with its
// history newest first, in two queries whatever the number of models.
func (s *Service) Prices(ctx context.Context, providerID int64) ([]*models.GpuPrice, error) {
	var prices []*models.GpuPrice
	if err := s.deps.DB.NewSelect().Model(&prices).Where("provider_id = ?", providerID).OrderExpr("model_key ASC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("pricing: unable to list prices: %w", err)
	}
	if len(prices) == 0 {
		return prices, nil
	}
	var changes []*models.GpuPriceChange
	if err := s.deps.DB.NewSelect().Model(&changes).Where("provider_id = ?", providerID).OrderExpr("id DESC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("pricing: unable to list price history: %w", err)
	}
	byKey := make(map[string]*models.GpuPrice, len(prices))
	for _, p := range prices {
		p.History = []*models.GpuPriceChange{}
		byKey[p.ModelKey] = p
	}
	for _, c := range changes {
		if p := byKey[c.ModelKey]; p != nil {
			p.History = append(p.History, c)
		}
	}
	return prices, nil
}

// PriceOf is the provider's current rate for the model, per GPU per hour;
// ok is false when the provider has not priced it (its GPUs of that model
// cannot be rented). A rental copies it when it starts and keeps it.
func (s *Service) PriceOf(ctx context.Context, providerID int64, modelKey string) (models.USDC, bool, error) {
	var p models.GpuPrice
	err := s.deps.DB.NewSelect().Model(&p).Where("provider_id = ? AND model_key = ?", providerID, modelKey).Scan(ctx)
	switch {
	case store.IsNoRows(err):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("pricing: unable to read the price: %w", err)
	}
	return p.PricePerHour, true, nil
}

// Floor is the least rate a provider may set for modelKey: the higher of
// Config.MinPricePerHour and Config.FloorBps of the model's market median
// (model_market_prices, refreshed by the market), the minimum alone while
// the model has no median.
func (s *Service) Floor(ctx context.Context, modelKey string) (models.USDC, error) {
	var medians []int64
	if err := s.deps.DB.NewSelect().Model((*models.ModelMarketPrice)(nil)).Column("median_micros").
		Where("model_key = ?", modelKey).Scan(ctx, &medians); err != nil {
		return 0, fmt.Errorf("pricing: unable to read the model's median price: %w", err)
	}
	floor := s.cfg.MinPricePerHour
	if len(medians) > 0 {
		floor = max(floor, models.USDC(medians[0]*int64(s.cfg.FloorBps)/10_000))
	}
	return floor, nil
}
