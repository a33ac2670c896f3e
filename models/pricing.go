package models

import (
	"time"

	"github.com/uptrace/bun"
)

// GpuPrice is a provider's current rate for one GPU model, per GPU per
// hour.
type GpuPrice struct {
	bun.BaseModel `bun:"table:gpu_prices,alias:gp"`

	ProviderID   int64     `bun:"provider_id,pk"`
	ModelKey     string    `bun:"model_key,pk"`
	PricePerHour USDC      `bun:"price_micros,notnull"`
	UpdatedAt    time.Time `bun:"updated_at,notnull"`

	// History is every rate of the model, newest first; loaded by the
	// pricing service, not a column.
	History []*GpuPriceChange `bun:"-"`
}

// GpuPriceChange is one rate a provider set for a model: the price
// history, never changed.
type GpuPriceChange struct {
	bun.BaseModel `bun:"table:gpu_price_changes,alias:gpc"`

	ID           int64     `bun:"id,pk,autoincrement"`
	ProviderID   int64     `bun:"provider_id,notnull"`
	ModelKey     string    `bun:"model_key,notnull"`
	PricePerHour USDC      `bun:"price_micros,notnull"`
	At           time.Time `bun:"at,notnull"`
}

// ProviderSchedule is when a provider's GPUs are offered. OpenFrom and
// OpenUntil are the current (or next) open interval, kept up to date by
// the pricing service so the marketplace filters on two columns (nil
// OpenUntil: open with no end ahead).
type ProviderSchedule struct {
	bun.BaseModel `bun:"table:provider_schedules,alias:ps"`

	ProviderID   int64        `bun:"provider_id,pk"`
	Availability Availability `bun:"embed:availability_"`
	OpenFrom     *time.Time   `bun:"open_from"`
	OpenUntil    *time.Time   `bun:"open_until"`
	UpdatedAt    time.Time    `bun:"updated_at,notnull"`
}

// MaintenanceWindow is planned downtime declared ahead, for one machine or
// (MachineID nil) all of a provider's machines.
type MaintenanceWindow struct {
	bun.BaseModel `bun:"table:maintenance_windows,alias:mw"`

	ID         int64     `bun:"id,pk,autoincrement"`
	ProviderID int64     `bun:"provider_id,notnull"`
	MachineID  *int64    `bun:"machine_id"`
	StartsAt   time.Time `bun:"starts_at,notnull"`
	EndsAt     time.Time `bun:"ends_at,notnull"`
	Note       *string   `bun:"note"`
	CreatedAt  time.Time `bun:"created_at,notnull"`
}
