package models

import (
	"time"

	"github.com/uptrace/bun"
)

// Notification is an in-app message for one user. Kind is a stable key that
// the SPA translates; Title and Body are the English rendering, used by API
// clients and as the fallback.
type Notification struct {
	bun.BaseModel `bun:"table:notifications,alias:n"`

	ID        int64             `bun:"id,pk,autoincrement" json:"id"`
	UserID    int64             `bun:"user_id,notnull" json:"userId"`
	Kind      string            `bun:"kind,notnull" json:"kind"`
	Title     string            `bun:"title,notnull" json:"title"`
	Body      string            `bun:"body,notnull" json:"body"`
	Params    map[string]string `bun:"params,type:text,notnull" json:"params"`
	CreatedAt time.Time         `bun:"created_at,notnull" json:"createdAt"`
	ReadAt    *time.Time        `bun:"read_at" json:"readAt,omitempty"`
}
