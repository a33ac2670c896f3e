package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// tflopsMigration is the migration that adds gpu_bench_status.tflops and
// fills it from each GPU's latest run (issue 26).
const tflopsMigration = "20261209000001_bench_tflops"

// TestTflopsBackfillReadsTheLatestRunsHeadlineFigure checks, on every
// backend, that the migration adding gpu_bench_status.tflops fills it for
// the rows already there the way models.HeadlineFigure reads a run: the
// measured value of the first of TENSOR_BF16, TENSOR_FP16 and FP32 that the
// GPU's latest run (latest_id) supported and measured, else NULL.
func TestTflopsBackfillReadsTheLatestRunsHeadlineFigure(t *testing.T) {
	t.Parallel()
	for _, backend := range storetest.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := store.Open(ctx, storetest.Config(t, backend))
			require.NoError(t, err)
			t.Cleanup(func() { _ = db.Close() })
			_, err = db.MigrateUp(ctx)
			require.NoError(t, err)

			// Back to before the migration (and any later one), as a
			// database of the version before it was.
			later := rollBackThrough(ctx, t, db, tflopsMigration)
			requireNoTflopsColumn(ctx, t, db)

			want := seedTflopsBackfill(ctx, t, db)

			applied, err := db.MigrateUp(ctx)
			require.NoError(t, err)
			require.Equal(t, append([]string{tflopsMigration}, later...), applied)
			require.Equal(t, want, readTflops(ctx, t, db), "tflops after the backfill")

			// Down drops the column and nothing else; up adds and fills it again.
			require.Equal(t, later, rollBackThrough(ctx, t, db, tflopsMigration))
			requireNoTflopsColumn(ctx, t, db)
			var n int
			require.NoError(t, db.QueryRowContext(ctx, "SELECT count(*) FROM gpu_bench_status").Scan(&n))
			require.Equal(t, len(want), n, "rolling back keeps every status row")

			applied, err = db.MigrateUp(ctx)
			require.NoError(t, err)
			require.Equal(t, append([]string{tflopsMigration}, later...), applied)
			require.Equal(t, want, readTflops(ctx, t, db), "tflops after rolling back and migrating up again")
		})
	}
}

// rollBackThrough rolls migrations back, the last first, until name is
// rolled back, and returns the ones after it, oldest first.
func rollBackThrough(ctx context.Context, t *testing.T, db *store.DB, name string) []string {
	t.Helper()
	var after []string
	for {
		rolled, err := db.RollbackLastMigration(ctx)
		require.NoError(t, err)
		require.NotEmpty(t, rolled, "%s was never applied", name)
		if rolled == name {
			return after
		}
		after = append([]string{rolled}, after...)
	}
}

// requireNoTflopsColumn fails unless gpu_bench_status lacks tflops.
func requireNoTflopsColumn(ctx context.Context, t *testing.T, db *store.DB) {
	t.Helper()
	var v sql.NullFloat64
	err := db.QueryRowContext(ctx, "SELECT tflops FROM gpu_bench_status LIMIT 1").Scan(&v)
	require.ErrorContains(t, err, "tflops", "gpu_bench_status.tflops is gone once the migration is rolled back")
}

// readTflops maps each GPU's name to its status row's tflops (nil for NULL).
func readTflops(ctx context.Context, t *testing.T, db *store.DB) map[string]*float64 {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT mg.name, s.tflops FROM gpu_bench_status s JOIN machine_gpus mg ON mg.id = s.gpu_id`)
	require.NoError(t, err)
	defer rows.Close()
	got := map[string]*float64{}
	for rows.Next() {
		var name string
		var v sql.NullFloat64
		require.NoError(t, rows.Scan(&name, &v))
		if v.Valid {
			got[name] = &v.Float64
		} else {
			got[name] = nil
		}
	}
	require.NoError(t, rows.Err())
	return got
}

// seedTflopsBackfill inserts, with the tflops migration rolled back, one
// provider's machine with a GPU for each case the backfill distinguishes,
// and returns the tflops each GPU's status row must hold after it.
func seedTflopsBackfill(ctx context.Context, t *testing.T, db *store.DB) map[string]*float64 {
	t.Helper()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	insert := func(query string, args ...any) int64 {
		t.Helper()
		var id int64
		require.NoError(t, db.QueryRowContext(ctx, query+" RETURNING id", args...).Scan(&id), query)
		return id
	}
	fig := func(metric protocol.BenchMetric, supported bool, measured *float64) models.BenchmarkFigure {
		return models.BenchmarkFigure{Metric: metric, Supported: supported, Measured: measured, Passed: true}
	}
	v := func(f float64) *float64 { return &f }
	figures := func(figs ...models.BenchmarkFigure) string {
		if figs == nil {
			figs = []models.BenchmarkFigure{}
		}
		b, err := json.Marshal(figs)
		require.NoError(t, err)
		return string(b)
	}
	bf16, fp16, fp32 := protocol.MetricTensorBF16, protocol.MetricTensorFP16, protocol.MetricFP32

	user := insert(`INSERT INTO users (email, name, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
		"provider@example.com", "Provider", "x", at, at)
	app := insert(`INSERT INTO provider_applications (user_id, status, full_name, email, ups_protected, commitment_months, suggested_tier, submitted_at, updated_at)
		VALUES (?, 'APPROVED', ?, ?, ?, ?, 'COMMUNITY', ?, ?)`,
		user, "Provider", "provider@example.com", false, 12, at, at)
	provider := insert(`INSERT INTO providers (user_id, application_id, tier, name, created_at) VALUES (?, ?, 'COMMUNITY', ?, ?)`,
		user, app, "Provider", at)
	machine := insert(`INSERT INTO machines (provider_id, machine_uid, hostname, agent_version, simulated, status, status_changed_at, registered_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 'ONLINE', ?, ?, ?)`,
		provider, "machine-1", "host-1", "1.0.0", false, at, at, at)
	run := func(uid string, requested time.Time) int64 {
		return insert(`INSERT INTO benchmark_runs (run_uid, machine_id, provider_id, reason, state, requested_at, simulated)
			VALUES (?, ?, ?, 'SCHEDULED', 'COMPLETED', ?, ?)`, uid, machine, provider, requested, false)
	}
	older, latest := run("run-older", at.Add(-24*time.Hour)), run("run-latest", at)

	want := map[string]*float64{}
	gpus := 0
	// gpu adds a GPU whose runs are the figures given, oldest first, each
	// scored in its own run; its status row points at the last of them, or
	// at none when there are none.
	gpu := func(name string, tflops *float64, runs ...string) {
		t.Helper()
		g := insert(`INSERT INTO machine_gpus (machine_id, uuid, idx, name, simulated, added_at) VALUES (?, ?, ?, ?, ?, ?)`,
			machine, fmt.Sprintf("GPU-%d", gpus), gpus, name, false, at)
		gpus++
		var latestID *int64
		for i, figs := range runs {
			runID, runAt := latest, at
			if i < len(runs)-1 {
				runID, runAt = older, at.Add(-24*time.Hour)
			}
			id := insert(`INSERT INTO gpu_benchmarks (run_id, gpu_id, machine_id, reason, at, simulated, outcome, score, passed, figures, shortfalls, guidance)
				VALUES (?, ?, ?, 'SCHEDULED', ?, ?, 'COMPLETED', ?, ?, ?, '[]', '[]')`,
				runID, g, machine, runAt, false, 90, true, figs)
			latestID = &id
		}
		_, err := db.ExecContext(ctx, `INSERT INTO gpu_bench_status (gpu_id, machine_id, provider_id, listing, score, latest_id, listing_changed_at, shortfalls, guidance)
			VALUES (?, ?, ?, 'LISTED', ?, ?, ?, '[]', '[]')`, g, machine, provider, 90, latestID, at)
		require.NoError(t, err)
		want[name] = tflops
	}
	// (a) BF16 and FP32 both measured: BF16, though FP32 comes first.
	gpu("a-bf16-over-fp32", v(812.5),
		figures(fig(fp32, true, v(67.5)), fig(bf16, true, v(812.5)), fig(protocol.MetricMemoryRead, true, v(3000))))
	// (b) BF16 listed but unsupported: the measured tensor FP16.
	gpu("b-unsupported-bf16", v(395.25),
		figures(fig(bf16, false, v(999)), fig(fp32, true, v(60)), fig(fp16, true, v(395.25))))
	// (b') BF16 supported but not measured: the tensor FP16 again.
	gpu("b-unmeasured-bf16", v(330),
		figures(fig(bf16, true, nil), fig(fp16, true, v(330)), fig(fp32, true, v(50))))
	// (c) Only FP32 measured.
	gpu("c-fp32-only", v(51.25),
		figures(fig(fp32, true, v(51.25)), fig(fp16, false, nil)))
	// (d) Only memory figures: NULL.
	gpu("d-memory-only", nil,
		figures(fig(protocol.MetricMemoryRead, true, v(3350)), fig(protocol.MetricMemoryWrite, true, v(3100))))
	// (d') A run with no figures at all (a failed run): NULL.
	gpu("d-no-figures", nil, figures())
	// (e) No latest run (latest_id NULL): NULL.
	gpu("e-no-latest-run", nil)
	// (f) An older run measured BF16; the latest only FP32: the latest's FP32.
	gpu("f-latest-run-wins", v(48.75),
		figures(fig(bf16, true, v(700))),
		figures(fig(fp32, true, v(48.75))))
	return want
}
