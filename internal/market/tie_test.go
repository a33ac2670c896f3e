package market

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestDomainOfIgnoresPublicMailAndReservedNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ email, want string }{
		{"Ana@Acme-GPU.io", "acme-gpu.io"},
		{"bob@lab.university.edu", "lab.university.edu"},
		{"someone@gmail.com", ""},
		{"someone@proton.me", ""},
		{"customer@example.com", ""},
		{"provider@gpunex.demo", ""},
		{"x@host.test", ""},
		{"not-an-email", ""},
	} {
		require.Equal(t, tc.want, domainOf(tc.email), tc.email)
	}
}

// Issue 24, point 5: a provider rented its own GPU. A provider cannot
// rent its own GPUs, nor can an account of its company's email domain or
// one paid out to the same destination; the scheduler passes over them.
func TestAProviderCannotRentItsOwnGPUs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p := b.provider(t, providerSpec{city: "Lisbon"})
		b.machine(t, p, h100, 2, 90, 2_000_000)
		var owner int64
		require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", p.id).Scan(b.ctx, &owner))
		l := b.list(t, Filter{}, SortRank)[0]

		refused := func(customer int64, in StartInput, field string) {
			t.Helper()
			_, err := b.svc.Start(b.ctx, customer, in)
			pr := problemOf(t, err)
			require.Equal(t, field, pr.Field)
			require.Equal(t, fault.OwnGPUs, pr.Code, pr.Message)
			require.Equal(t, 0, b.allocations(t), "nothing allocated")
		}
		viaListing := StartInput{ListingID: &l.ID, GpuCount: 1, Image: "python:3.12"}
		viaModel := StartInput{Model: ptr(h100), GpuCount: 1, Image: "python:3.12"}
		refused(owner, viaListing, "input.listingId")
		refused(owner, viaModel, "input.model")

		// A colleague at the provider's company.
		setEmail := func(user int64, email string) {
			_, err := db.NewUpdate().Model((*models.User)(nil)).Set("email = ?", email).Where("id = ?", user).Exec(b.ctx)
			require.NoError(t, err)
		}
		setEmail(owner, "ops@acme-gpu.io")
		colleague := b.user(t, "colleague")
		setEmail(colleague, "finance@ACME-GPU.io")
		refused(colleague, viaListing, "input.listingId")
		// Two strangers on a public mail service are not tied.
		setEmail(owner, "ana.provider@gmail.com")
		stranger := b.user(t, "stranger")
		setEmail(stranger, "bob.customer@gmail.com")
		r, err := b.svc.Start(b.ctx, stranger, viaListing)
		require.NoError(t, err)
		_, err = b.svc.Stop(b.ctx, stranger, r.ID)
		require.NoError(t, err)
		b.clock.Advance(b.svc.Config().StopGrace)
		require.NoError(t, b.svc.Tick(b.ctx))

		// Another provider account paid out to the same wallet.
		q := b.provider(t, providerSpec{city: "Porto"})
		var qOwner int64
		require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", q.id).Scan(b.ctx, &qOwner))
		wallet := "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
		for _, id := range []int64{p.id, q.id} {
			_, err := db.NewInsert().Model(&models.PayoutMethod{ProviderID: id, Schedule: "WEEKLY", Kind: "SOLANA", SolanaAddress: &wallet,
				ChangedAt: b.clock.Now(), HoldUntil: b.clock.Now()}).Exec(b.ctx)
			require.NoError(t, err)
		}
		refused(qOwner, viaListing, "input.listingId")

		// The scheduler passes over the customer's own machine for another's.
		other := b.provider(t, providerSpec{city: "Madrid"})
		m := b.machine(t, other, h100, 1, 10, 2_000_000)
		r, err = b.svc.Start(b.ctx, owner, viaModel)
		require.NoError(t, err)
		require.Equal(t, m.id, r.MachineID, "the other provider's machine, though it ranks lower")
	})
}
