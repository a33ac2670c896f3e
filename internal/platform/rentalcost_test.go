package platform_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

const rentalCostQuery = `query R($id: ID!) { rental(id: $id) { id state billedSeconds billedUntil charged refunded } }`

const statementQuery = `query S($first: Int, $after: String) { myStatement(first: $first, after: $after) {
  edges { cursor node { id postedAt kind reference rentalId amount balance } } pageInfo { hasNextPage endCursor } balance } }`

type rentalCost struct {
	ID, State         string
	BilledSeconds     int
	BilledUntil       *string
	Charged, Refunded string
}

type statementData struct {
	MyStatement struct {
		Edges []struct {
			Node struct {
				ID, Kind, Reference, Amount, Balance string
				RentalID                             *string
			}
		}
		PageInfo struct {
			HasNextPage bool
			EndCursor   *string
		}
		Balance string
	}
}

// Issue 26: a customer reads what their rental costs (the meter's billed
// seconds and charge), live as the meter ticks, in the list with the
// month's total, and their statement and its CSV; another customer gets
// NOT_FOUND for the rental and sees none of it in their own statement,
// and an anonymous caller is refused.
func TestRentalCostAndStatementAreTheCustomersOwnOverGraphQL(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		ctx := context.Background()
		p := s.NewProvider(t, "cost")
		marketMachine(t, s, p, "cost-machine-a", 1, 90, 3_600_000)
		c := customer(t, s, "payer")
		other := customer(t, s, "other")
		id := rentTheOnlyListing(t, c)

		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(map[string]any{"authorization": "Bearer " + c.Token})
		ws.Subscribe("1", `subscription R($id: ID) { rentalUpdated(id: $id) { id state billedSeconds charged } }`, map[string]any{"id": id})
		type event struct {
			ID, State, Charged string
			BilledSeconds      int
		}
		next := func() event {
			t.Helper()
			m := ws.MustRead(10 * time.Second)
			require.Equal(t, "next", m.Type, "payload: %s", m.Payload)
			var ev struct{ Data struct{ RentalUpdated event } }
			require.NoError(t, json.Unmarshal(m.Payload, &ev))
			return ev.Data.RentalUpdated
		}
		require.Equal(t, event{ID: id, State: "STARTING", Charged: "0.000000"}, next())

		// The job has run 90 s (as the platform observed, not the agent's
		// word), and the meter ticks.
		startedAt := time.Now().Add(-90 * time.Second).UTC().Truncate(time.Microsecond)
		_, err = s.Platform.DB.NewUpdate().Model((*models.Rental)(nil)).Set("state = ?, started_at = ?", models.RentalRunning, startedAt).
			Where("id = ?", id).Exec(ctx)
		require.NoError(t, err)
		require.NoError(t, s.Platform.Billing.Tick(ctx))
		var meter models.RentalMeter
		require.NoError(t, s.Platform.DB.NewSelect().Model(&meter).Where("rental_id = ?", id).Scan(ctx))
		require.Positive(t, int64(meter.Charged))
		secs := int(meter.BilledUntil.Sub(startedAt) / time.Second)
		require.GreaterOrEqual(t, secs, 90)

		// The tick's charge comes live, with the rental's billed seconds.
		ev := next()
		for ev.Charged == "0.000000" {
			ev = next()
		}
		require.Equal(t, event{ID: id, State: "RUNNING", Charged: meter.Charged.String(), BilledSeconds: secs}, ev)

		var mine struct{ Rental rentalCost }
		c.MustDo(&mine, rentalCostQuery, map[string]any{"id": id})
		require.Equal(t, meter.Charged.String(), mine.Rental.Charged)
		require.Equal(t, secs, mine.Rental.BilledSeconds)
		require.Equal(t, "0.000000", mine.Rental.Refunded)
		require.NotNil(t, mine.Rental.BilledUntil)

		var rentals struct {
			MyRentals struct {
				Edges []struct{ Node struct{ ID, Charged string } }
			}
			MyRentalsMonthTotal struct{ MonthStart, Charged string }
		}
		c.MustDo(&rentals, `{ myRentals { edges { node { id charged } } } myRentalsMonthTotal { monthStart charged } }`, nil)
		require.Len(t, rentals.MyRentals.Edges, 1)
		require.Equal(t, meter.Charged.String(), rentals.MyRentals.Edges[0].Node.Charged)
		require.Equal(t, meter.Charged.String(), rentals.MyRentalsMonthTotal.Charged)
		now := time.Now().UTC()
		require.Equal(t, time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339Nano), rentals.MyRentalsMonthTotal.MonthStart)

		var st statementData
		c.MustDo(&st, statementQuery, nil)
		require.Len(t, st.MyStatement.Edges, 2)
		require.Equal(t, "DEPOSIT", st.MyStatement.Edges[0].Node.Kind)
		charge := st.MyStatement.Edges[1].Node
		require.Equal(t, "RENTAL_CHARGE", charge.Kind)
		require.Equal(t, id, *charge.RentalID)
		require.Equal(t, (-meter.Charged).String(), charge.Amount)
		require.Equal(t, (1000*models.MicrosPerUSDC - meter.Charged).String(), charge.Balance)
		require.Equal(t, charge.Balance, st.MyStatement.Balance)
		var csv struct{ MyStatementCsv string }
		c.MustDo(&csv, `{ myStatementCsv }`, nil)
		lines := strings.Split(strings.TrimSpace(csv.MyStatementCsv), "\n")
		require.Len(t, lines, 3)
		require.True(t, strings.HasSuffix(lines[2], ","+id+","+(-meter.Charged).String()+","+charge.Balance), lines[2])

		// Another customer: NOT_FOUND, and only their own deposit.
		res := other.Do(rentalCostQuery, map[string]any{"id": id})
		require.Equal(t, []string{"NOT_FOUND"}, res.Codes())
		var theirs statementData
		other.MustDo(&theirs, statementQuery, nil)
		require.Len(t, theirs.MyStatement.Edges, 1)
		require.Equal(t, "DEPOSIT", theirs.MyStatement.Edges[0].Node.Kind)
		require.Equal(t, "1000.000000", theirs.MyStatement.Balance)
		other.MustDo(&csv, `{ myStatementCsv }`, nil)
		require.NotContains(t, csv.MyStatementCsv, "RENTAL_CHARGE")
		var theirRentals struct {
			MyRentals           struct{ Edges []any }
			MyRentalsMonthTotal struct{ Charged string }
		}
		other.MustDo(&theirRentals, `{ myRentals { edges { cursor } } myRentalsMonthTotal { charged } }`, nil)
		require.Empty(t, theirRentals.MyRentals.Edges)
		require.Equal(t, "0.000000", theirRentals.MyRentalsMonthTotal.Charged)

		// No one signed in: refused.
		anon := s.NewAPIClient(t, "")
		for _, q := range []string{statementQuery, `{ myStatementCsv }`, `{ myRentalsMonthTotal { charged } }`} {
			require.Equal(t, []string{"UNAUTHENTICATED"}, anon.Do(q, nil).Codes(), q)
		}
	})
}

// Issue 29 point 4: a provider follows the rentals on its GPUs with the
// model's display name, the GPUs' indexes on the machine and what each
// rental has earned it so far (the meter's charge less the platform's
// fee), which grows live with each metering tick; another provider sees
// none of it.
func TestAProvidersRentalsShowWhatEachHasEarnedLive(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		ctx := context.Background()
		p := s.NewProvider(t, "earner")
		marketMachine(t, s, p, "earner-machine-a", 1, 90, 3_600_000)
		c := customer(t, s, "renter")
		id := rentTheOnlyListing(t, c)

		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(map[string]any{"authorization": "Bearer " + p.User.Token})
		ws.Subscribe("1", `subscription { providerRentalUpdated { id state hostname earned gpuIndexes model { name } } }`, nil)
		type event struct {
			ID, State, Hostname, Earned string
			GpuIndexes                  []int
			Model                       *struct{ Name string }
		}
		next := func() event {
			t.Helper()
			m := ws.MustRead(10 * time.Second)
			require.Equal(t, "next", m.Type, "payload: %s", m.Payload)
			var ev struct {
				Data struct{ ProviderRentalUpdated event }
			}
			require.NoError(t, json.Unmarshal(m.Payload, &ev))
			return ev.Data.ProviderRentalUpdated
		}
		first := next()
		require.Equal(t, id, first.ID)
		require.Equal(t, "0.000000", first.Earned, "not metered yet")
		require.Equal(t, []int{0}, first.GpuIndexes)
		require.NotNil(t, first.Model)
		require.NotEmpty(t, first.Model.Name)
		require.NotContains(t, first.Model.Name, "_", "a display name, not a catalogue key")

		startedAt := time.Now().Add(-90 * time.Second).UTC().Truncate(time.Microsecond)
		_, err = s.Platform.DB.NewUpdate().Model((*models.Rental)(nil)).Set("state = ?, started_at = ?", models.RentalRunning, startedAt).
			Where("id = ?", id).Exec(ctx)
		require.NoError(t, err)
		require.NoError(t, s.Platform.Billing.Tick(ctx))
		var meter models.RentalMeter
		require.NoError(t, s.Platform.DB.NewSelect().Model(&meter).Where("rental_id = ?", id).Scan(ctx))
		require.Positive(t, int64(meter.Fee), "the platform took its fee")
		earned := (meter.Charged - meter.Fee).String()

		// The tick's earnings come live.
		ev := next()
		for ev.Earned == "0.000000" {
			ev = next()
		}
		require.Equal(t, earned, ev.Earned)
		var mine struct {
			MyProvider struct {
				Rentals []struct{ ID, Earned string }
			}
		}
		p.User.MustDo(&mine, `{ myProvider { rentals { id earned } } }`, nil)
		require.Len(t, mine.MyProvider.Rentals, 1)
		require.Equal(t, earned, mine.MyProvider.Rentals[0].Earned)

		other := s.NewProvider(t, "stranger")
		other.User.MustDo(&mine, `{ myProvider { rentals { id earned } } }`, nil)
		require.Empty(t, mine.MyProvider.Rentals, "another provider's rentals are not its own")
	})
}
