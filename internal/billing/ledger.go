package billing

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/models"
)

// accountKey names an account: its kind and owner (0 for the platform's).
type accountKey struct {
	kind  models.LedgerAccountKind
	owner int64
}

// leg is one side of a posting.
type leg struct {
	account accountKey
	amount  models.USDC
}

// posting is one ledger transaction to write: legs that sum to zero.
type posting struct {
	tx   *models.LedgerTransaction
	legs []leg
}

// accounts returns the ids of the accounts named, creating those that do
// not exist yet, in two statements whatever their number.
func accounts(ctx context.Context, idb bun.IDB, now time.Time, keys []accountKey) (map[accountKey]int64, error) {
	ids, _, err := accountsWithBalances(ctx, idb, now, keys)
	return ids, err
}

// accountsWithBalances is accounts with their balances, by id.
func accountsWithBalances(ctx context.Context, idb bun.IDB, now time.Time, keys []accountKey) (map[accountKey]int64, map[int64]models.USDC, error) {
	if len(keys) == 0 {
		return map[accountKey]int64{}, map[int64]models.USDC{}, nil
	}
	keys = uniqueKeys(keys)
	rows := make([]*models.LedgerAccount, len(keys))
	for i, k := range keys {
		rows[i] = &models.LedgerAccount{Kind: k.kind, OwnerID: k.owner, UpdatedAt: now}
	}
	if _, err := idb.NewInsert().Model(&rows).ExcludeColumn("id").On("CONFLICT (kind, owner_id) DO NOTHING").Exec(ctx); err != nil {
		return nil, nil, fmt.Errorf("billing: unable to open ledger accounts: %w", err)
	}
	var found []*models.LedgerAccount
	q := idb.NewSelect().Model(&found).Column("id", "kind", "owner_id", "balance_micros")
	q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for _, k := range keys {
			q = q.WhereOr("(kind = ? AND owner_id = ?)", k.kind, k.owner)
		}
		return q
	})
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("billing: unable to read ledger accounts: %w", err)
	}
	out := make(map[accountKey]int64, len(found))
	balances := make(map[int64]models.USDC, len(found))
	for _, a := range found {
		out[accountKey{a.Kind, a.OwnerID}] = a.ID
		balances[a.ID] = a.Balance
	}
	return out, balances, nil
}

func uniqueKeys(keys []accountKey) []accountKey {
	slices.SortFunc(keys, func(a, b accountKey) int {
		if c := strings.Compare(string(a.kind), string(b.kind)); c != 0 {
			return c
		}
		return int(a.owner - b.owner)
	})
	return slices.Compact(keys)
}

// post writes postings in one transaction's worth of statements: the
// ledger transactions, their entries, and the accounts' balances (one
// statement each, whatever the number of postings). Every posting must
// sum to zero; a balance the database's check refuses (a customer's funds
// or a provider's earnings below zero) fails the whole call.
func post(ctx context.Context, tx bun.Tx, now time.Time, postings []*posting) error {
	return postWith(ctx, tx, now, postings, nil)
}

// postWith is post with the accounts' ids known already (those missing
// are opened).
func postWith(ctx context.Context, tx bun.Tx, now time.Time, postings []*posting, known map[accountKey]int64) error {
	delta, err := writePostings(ctx, tx, now, postings, known)
	if err != nil {
		return err
	}
	return addBalances(ctx, tx, now, delta)
}

// writePostings is postWith up to the balances: it writes the postings'
// transactions and entries and returns what each account's balance is to
// change by.
func writePostings(ctx context.Context, tx bun.Tx, now time.Time, postings []*posting, known map[accountKey]int64) (map[int64]models.USDC, error) {
	if len(postings) == 0 {
		return nil, nil
	}
	var keys []accountKey
	for _, p := range postings {
		var sum models.USDC
		for _, l := range p.legs {
			sum += l.amount
			keys = append(keys, l.account)
		}
		if sum != 0 {
			return nil, fmt.Errorf("billing: a %s posting sums to %d, not zero", p.tx.Kind, sum)
		}
		p.tx.CreatedAt = now
	}
	ids := known
	var missing []accountKey
	for _, k := range keys {
		if _, ok := ids[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		opened, err := accounts(ctx, tx, now, missing)
		if err != nil {
			return nil, err
		}
		ids = make(map[accountKey]int64, len(known)+len(opened))
		for k, v := range known {
			ids[k] = v
		}
		for k, v := range opened {
			ids[k] = v
		}
	}
	txs := make([]*models.LedgerTransaction, len(postings))
	for i, p := range postings {
		txs[i] = p.tx
	}
	if _, err := tx.NewInsert().Model(&txs).Returning("id").Exec(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to write ledger transactions: %w", err)
	}
	var entries []*models.LedgerEntry
	delta := map[int64]models.USDC{}
	for _, p := range postings {
		for _, l := range p.legs {
			if l.amount == 0 {
				continue
			}
			id := ids[l.account]
			entries = append(entries, &models.LedgerEntry{TransactionID: p.tx.ID, AccountID: id, Amount: l.amount, CreatedAt: now})
			delta[id] += l.amount
		}
	}
	if len(entries) == 0 {
		return nil, nil
	}
	if _, err := tx.NewInsert().Model(&entries).Exec(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to write ledger entries: %w", err)
	}
	return delta, nil
}

// changedAccounts is the accounts delta changes, in id order.
func changedAccounts(delta map[int64]models.USDC) []int64 {
	ids := make([]int64, 0, len(delta))
	for id, d := range delta {
		if d != 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// addBalances adds delta to the accounts' balances in one statement.
func addBalances(ctx context.Context, tx bun.Tx, now time.Time, delta map[int64]models.USDC) error {
	ids := changedAccounts(delta)
	if len(ids) == 0 {
		return nil
	}
	var b strings.Builder
	args := []any{now}
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?)")
		args = append(args, id, int64(delta[id]))
	}
	// VALUES' columns are column1, column2 on both databases.
	q := `UPDATE ledger_accounts SET balance_micros = ledger_accounts.balance_micros + v.column2, updated_at = ?
		FROM (VALUES ` + b.String() + `) AS v WHERE ledger_accounts.id = v.column1`
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("billing: unable to update balances: %w", err)
	}
	return nil
}

// Balance is the balance of an account (0 when it was never opened).
func (s *Service) balance(ctx context.Context, idb bun.IDB, kind models.LedgerAccountKind, owner int64) (models.USDC, error) {
	var a models.LedgerAccount
	err := idb.NewSelect().Model(&a).Column("balance_micros").Where("kind = ? AND owner_id = ?", kind, owner).Scan(ctx)
	switch {
	case err == nil:
		return a.Balance, nil
	case isNoRows(err):
		return 0, nil
	default:
		return 0, fmt.Errorf("billing: unable to read a balance: %w", err)
	}
}
