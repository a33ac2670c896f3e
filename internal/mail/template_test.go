package mail_test

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/models"
)

// Issue 11, point 12: the email templates have the same keys and
// placeholders in all five languages, no empty text, and no English left
// where a language does not say it means it.
func TestTemplatesAgreeInEveryLanguage(t *testing.T) {
	t.Parallel()
	c, err := mail.Texts()
	require.NoError(t, err)
	require.Empty(t, c.Problems())
	for _, lang := range models.AllLanguages {
		require.NotEmpty(t, c.Texts[lang], lang)
	}
}

// Every text renders in every language once its placeholders have values:
// the Email finds it and leaves no {{ behind.
func TestEveryTemplateRendersInEveryLanguage(t *testing.T) {
	t.Parallel()
	c, err := mail.Texts()
	require.NoError(t, err)
	for _, lang := range models.AllLanguages {
		for key, text := range c.Texts[lang] {
			dot := strings.LastIndexByte(key, '.')
			vars := mail.Vars{}
			for _, name := range mail.Placeholders(text) {
				vars[name] = "value of " + name
			}
			e := mail.Compose(lang, key[:dot])
			out := e.T(key[dot+1:], vars)
			require.NoError(t, e.Err(), "%s %s", lang, key)
			require.NotContains(t, out, "{{", "%s %s", lang, key)
			require.NotEmpty(t, strings.TrimSpace(out), "%s %s", lang, key)
		}
	}
}

// The checks catch what a translator can get wrong: a missing or extra
// key, different placeholders, an empty text, English left, and a
// _sameAsEnglish naming no text.
func TestTemplateProblemsAreFound(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{}
	for _, lang := range models.AllLanguages {
		files["templates/"+string(lang)+".json"] = &fstest.MapFile{Data: []byte(`{"a": {"subject": "Ciao {{name}}", "body": "Uno"}}`)}
	}
	files["templates/en.json"] = &fstest.MapFile{Data: []byte(`{"a": {"subject": "Hello {{name}}", "body": "One", "tail": "Thanks for reading"}}`)}
	files["templates/es.json"] = &fstest.MapFile{Data: []byte(`{"a": {"subject": "Hola {{nombre}}", "body": " ", "tail": "Gracias", "extra": "Más"}}`)}
	files["templates/pt.json"] = &fstest.MapFile{Data: []byte(`{"_sameAsEnglish": ["a.gone"], "a": {"subject": "Olá {{name}}", "body": "Um", "tail": "Thanks for reading"}}`)}
	c, err := mail.LoadCatalog(files)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{
		"es: a.body is empty",
		"es: extra key a.extra (not in en)",
		"es: a.subject has placeholders [nombre], en has [name]",
		`pt: a.tail is still English: "Thanks for reading"`,
		"pt: _sameAsEnglish names a.gone, which en does not have",
		"hi: missing key a.tail",
		"ar: missing key a.tail",
	}, c.Problems())

	files["templates/hi.json"] = &fstest.MapFile{Data: []byte(`{"a": ["not", "a text"]}`)}
	_, err = mail.LoadCatalog(files)
	require.ErrorContains(t, err, "templates/hi.json")
}

// The HTML part is escaped by html/template and the text part is not; an
// Arabic email is right to left; links are links.
func TestRenderEscapesOnlyTheHTMLPart(t *testing.T) {
	t.Parallel()
	const name = `Ada <b>"R&D"</b>`
	for _, tc := range []struct {
		lang     models.Language
		greeting string
		dir      string
	}{
		{models.LanguageEnglish, "Hello " + name + ",", "ltr"},
		{models.LanguageArabic, "مرحبًا " + name + "،", "rtl"},
	} {
		e := mail.Compose(tc.lang, "application.rejected").Subject(nil).Greeting(name).
			P("reason", nil).Quote("line one\n<script>alert(1)</script>").URL("https://gpunex.example/provider/apply?a=1&b=2")
		subject, text, html, err := e.Render()
		require.NoError(t, err)
		require.NotEmpty(t, subject)
		require.Contains(t, text, tc.greeting+"\n\n")
		require.Contains(t, text, "line one\n<script>alert(1)</script>")
		require.Contains(t, text, "\nhttps://gpunex.example/provider/apply?a=1&b=2\n")
		require.Contains(t, html, `<html lang="`+string(tc.lang)+`" dir="`+tc.dir+`">`)
		require.Contains(t, html, `<div lang="`+string(tc.lang)+`" dir="`+tc.dir+`"`)
		require.Contains(t, html, "Ada &lt;b&gt;&#34;R&amp;D&#34;&lt;/b&gt;")
		require.NotContains(t, html, "<script>")
		require.Contains(t, html, `<a href="https://gpunex.example/provider/apply?a=1&amp;b=2"`)
	}
}

// A missing value, a missing key or a missing subject is an error, not
// an email with a hole.
func TestRenderRefusesAnIncompleteEmail(t *testing.T) {
	t.Parallel()
	_, _, _, err := mail.Compose(models.LanguageHindi, "account.confirm_email").Subject(nil).P("expiry", nil).Render()
	require.ErrorContains(t, err, "no value for {{expires}}")
	_, _, _, err = mail.Compose(models.LanguageHindi, "account.confirm_email").Subject(nil).P("nope", nil).Render()
	require.ErrorContains(t, err, "no text account.confirm_email.nope in hi")
	_, _, _, err = mail.Compose(models.LanguageHindi, "account.confirm_email").P("intro", nil).Render()
	require.ErrorContains(t, err, "no subject")
	// A language GPUnex does not speak is written in English.
	subject, _, _, err := mail.Compose("fr", "account.confirm_email").Subject(nil).Render()
	require.NoError(t, err)
	require.Equal(t, "Confirm your email to finish signing up for GPUnex", subject)
}

// Dates and numbers are written as the reader's language writes them: a
// four-digit number is grouped except in Spanish, as Intl.NumberFormat
// does in the SPA; amounts of USDC keep two to six decimals.
func TestDatesAndNumbersFollowTheLanguage(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 3, 9, 5, 0, 0, time.FixedZone("CET", 3600))
	amount, err := models.ParseUSDC("12345.678")
	require.NoError(t, err)
	for _, tc := range []struct {
		lang                           models.Language
		date, fraction, five, big, neg string
		usdc, small                    string
	}{
		{models.LanguageEnglish, "December 3, 2026, 08:05 UTC", "1,234.5", "12,345.678", "1,234,567.25", "-0.5", "12,345.678 USDC", "-0.50 USDC"},
		{models.LanguageSpanish, "3 de diciembre de 2026, 08:05 UTC", "1234,5", "12.345,678", "1.234.567,25", "-0,5", "12.345,678 USDC", "-0,50 USDC"},
		{models.LanguagePortuguese, "3 de dezembro de 2026, 08:05 UTC", "1.234,5", "12.345,678", "1.234.567,25", "-0,5", "12.345,678 USDC", "-0,50 USDC"},
		{models.LanguageHindi, "3 दिसंबर 2026, 08:05 UTC", "1,234.5", "12,345.678", "12,34,567.25", "-0.5", "12,345.678 USDC", "-0.50 USDC"},
		{models.LanguageArabic, "٣ ديسمبر ٢٠٢٦، الساعة ٠٨:٠٥ بالتوقيت العالمي", "١٬٢٣٤٫٥", "١٢٬٣٤٥٫٦٧٨", "١٬٢٣٤٬٥٦٧٫٢٥", "-٠٫٥", "١٢٬٣٤٥٫٦٧٨ USDC", "-٠٫٥٠ USDC"},
	} {
		e := mail.Compose(tc.lang, "account.confirm_email")
		require.Equal(t, tc.date, e.DateTime(at), tc.lang)
		require.Equal(t, tc.fraction, e.Number(1234.5, 3), tc.lang)
		require.Equal(t, tc.five, e.Number(12345.678, 3), tc.lang)
		require.Equal(t, tc.big, e.Number(1234567.25, 2), tc.lang)
		require.Equal(t, tc.neg, e.Number(-0.5, 3), tc.lang)
		require.Equal(t, tc.usdc, e.USDC(amount), tc.lang)
		require.Equal(t, tc.small, e.USDC(models.USDC(-500_000)), tc.lang)
		require.NoError(t, e.Err())
	}
}

// A number written in a template's text is in the language's digits: the
// Arabic approval email numbers its steps ١. ٢. ٣., not 1. 2. 3.
func TestTemplateNumbersUseTheLanguagesDigits(t *testing.T) {
	t.Parallel()
	c, err := mail.Texts()
	require.NoError(t, err)
	ar := c.Texts[models.LanguageArabic]
	for key, text := range ar {
		require.NotRegexp(t, `^[0-9]+\.`, text, key)
	}
	for i, step := range []string{"step1", "step2", "step3"} {
		require.True(t, strings.HasPrefix(ar["application.approved."+step], mail.Compose(models.LanguageArabic, "").Digits(string(rune('1'+i)))+". "), step)
	}
}
