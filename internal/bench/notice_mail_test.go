package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Issue 11, point 12: a delisting email is in the provider's language,
// metric names, guidance and figures included: Arabic words, Arabic-Indic
// digits and the Arabic decimal separator, right to left in HTML.
func TestDelistingEmailIsInTheProvidersLanguage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, err := db.NewUpdate().Model((*models.User)(nil)).Set("language = ?", models.LanguageArabic).Where("email = ?", b.email).Exec(b.ctx)
		require.NoError(t, err)
		b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100), gpu("GPU-B", 1, h100))
		run := b.runOf(t, b.agent, "machine-1")
		b.clock.Advance(20 * time.Minute)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run.RunID, "machine-1", healthy("GPU-A"), throttled("GPU-B"))))

		es := b.emails(t)
		require.Len(t, es, 1)
		e := es[0]
		require.Equal(t, "benchmark.delisted", e.Kind)
		require.Equal(t, "GPUnex: أُزيلت وحدة GPU من القائمة على host-machine-1", e.Subject)
		for _, part := range []string{e.TextBody, e.HTMLBody} {
			require.Contains(t, part, "وحدة GPU رقم ١ (NVIDIA H100 80GB HBM3):")
			// FP32 measured 33.165, expected 60.3, minimum 42.21.
			require.Contains(t, part, "حوسبة FP32: القيمة المقيسة ٣٣٫١٦٥؛ المتوقَّع ٦٠٫٣، والحد الأدنى ٤٢٫٢١")
			require.Contains(t, part, "ما يجب فحصه: ")
			require.NotContains(t, part, "measured")
			require.NotContains(t, part, "What to check")
			require.NotContains(t, part, "Throttled", "the guidance is translated too")
		}
		require.Contains(t, e.HTMLBody, `<html lang="ar" dir="rtl">`)
	})
}
