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
		in := b.result(run.RunID, "machine-1", healthy("GPU-A"), throttled("GPU-B"))
		in.Storage = storage(40.5, 2500, 90_000) // under the 100 MB/s minimum: SLOW_DISK
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, in))

		es := b.emails(t)
		require.Len(t, es, 1)
		e := es[0]
		require.Equal(t, "benchmark.delisted", e.Kind)
		require.Equal(t, "GPUnex: أُزيلت وحدة GPU من القائمة على host-machine-1", e.Subject)
		for _, part := range []string{e.TextBody, e.HTMLBody} {
			require.Contains(t, part, "وحدة GPU رقم ١ (NVIDIA H100 80GB HBM3):")
			// FP32 measured 33.165, expected 60.3, minimum 42.21.
			require.Contains(t, part, "حوسبة FP32: القيمة المقيسة ٣٣٫١٦٥؛ المتوقَّع ٦٠٫٣، والحد الأدنى ٤٢٫٢١")
			// The guidance's values are the language's too: the metric by
			// its Arabic name, figures in Arabic-Indic digits with the
			// Arabic decimal separator.
			require.Contains(t, part, "ما يجب فحصه: قاس قرص البيانات ٤٠٫٥ في الكتابة على القرص؛ والمطلوب ١٠٠ على الأقل.")
			require.Contains(t, part, "ما يجب فحصه: خُفّضت سرعته بسبب الحرارة خلال ٦٢ % من الاختبار (حتى ٩١ °م).")
			require.NotContains(t, part, "STORAGE_WRITE_MBS")
			require.NotContains(t, part, "40.5")
			require.NotContains(t, part, "measured")
			require.NotContains(t, part, "What to check")
			require.NotContains(t, part, "Throttled", "the guidance is translated too")
		}
		require.Contains(t, e.HTMLBody, `<html lang="ar" dir="rtl">`)
	})
}

// A guidance's parameters are written for the reader: a metric by its
// name, figures with the language's digits, separators and grouping, a
// figure not known as n/a and a driver error the agent did not name as an
// unknown error, all in the language.
func TestDelistingGuidanceValuesFollowTheLanguage(t *testing.T) {
	t.Parallel()
	param := func(kv ...string) []models.BenchmarkParam {
		var out []models.BenchmarkParam
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, models.BenchmarkParam{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	changes := []listingChange{{gpu: gpuRow{Index: 2, Name: "NVIDIA H100 80GB HBM3"}, to: models.GpuListingDelisted,
		result: &models.GpuBenchmark{Outcome: "FAILED", Guidance: []models.BenchmarkGuidance{
			{Code: models.GuidanceDriverError, Message: "english", Params: param("error", "unknown")},
			{Code: models.GuidancePowerThrottling, Message: "english", Params: param("powerLimitW", "350", "ratedW", "", "sharePct", "62")},
			{Code: models.GuidanceCheckHardware, Message: "english", Params: param("metric", "MEMORY_READ_GBS", "measured", "1234.5", "expected", "3350")},
			{Code: models.GuidanceMemoryErrors, Message: "english", Params: param("uncorrected", "?")},
		}}}}
	for _, tc := range []struct {
		lang models.Language
		want []string
	}{
		{models.LanguageEnglish, []string{
			"the driver reported an unknown error.",
			"Held at its power limit of 350 W (rated n/a W) during 62 % of the run.",
			"Memory read measured 1,234.5 against an expected 3,350,",
			"What to check: n/a uncorrectable memory errors",
		}},
		{models.LanguageSpanish, []string{
			"el controlador informó un error desconocido.",
			"Lectura de memoria midió 1234,5 frente a los 3350 esperados,",
		}},
		{models.LanguageArabic, []string{
			"لم تتمكن وحدة GPU من إكمال الاختبار: أبلغ برنامج التشغيل عن خطأ غير معروف.",
			"بقي عند حد الطاقة ٣٥٠ واط (المقنن غير متاح واط) خلال ٦٢ % من الاختبار.",
			"قاس قراءة الذاكرة \u200f١٬٢٣٤٫٥ مقابل ٣٬٣٥٠ متوقعة،",
			"رُصد غير متاح من أخطاء الذاكرة",
		}},
	} {
		subject, text, html, err := noticeEmail(tc.lang, MailKindDelisted, "host-1", "Ada", changes, "https://gpunex.test/provider/benchmarks").Render()
		require.NoError(t, err, tc.lang)
		require.NotEmpty(t, subject)
		for _, part := range []string{text, html} {
			for _, want := range tc.want {
				require.Contains(t, part, want, tc.lang)
			}
			for _, raw := range []string{"english", "MEMORY_READ_GBS", "1234.5", " unknown.", "?"} {
				require.NotContains(t, part, raw, tc.lang)
			}
		}
	}
}
