package bank

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSEPAText_TransliteratesLatinScriptIntoTheSEPASet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ desc, in, want string }{
		{"plain ASCII is kept", "Ana Silva (Porto) 2/3", "Ana Silva (Porto) 2/3"},
		{"diacritics are dropped", "Zoë Ångström-Ibáñez", "Zoe Angstrom-Ibanez"},
		{"German", "Müller & Söhne GmbH, Straße 5", "Muller + Sohne GmbH, Strasse 5"},
		{"Polish", "Łódź Wróbel", "Lodz Wrobel"},
		{"Turkish dotless i and g with breve", "Çağrı Şahin", "Cagri Sahin"},
		{"Czech", "Antonín Dvořák", "Antonin Dvorak"},
		{"Vietnamese stacked marks", "Nguyễn Văn Đức", "Nguyen Van Duc"},
		{"Nordic letters", "Søren Kierkegaard, Ærø; Þór", "Soren Kierkegaard, AEro, THor"},
		{"typographic quotes and dashes", "O’Brien – “Ltd”", "O'Brien - 'Ltd'"},
		{"white space collapses and is trimmed", "  Ana\t\tSilva\u00a0 Lda \n", "Ana Silva Lda"},
		{"underscore and brackets", "ref_1 [2026]", "ref-1 (2026)"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			got, _, ok := sepaText(tc.in)
			require.True(t, ok)
			require.Equal(t, tc.want, got)
			for _, r := range got {
				require.True(t, sepaChar(r), "%q left in %q", r, got)
			}
		})
	}
}

func TestSEPAText_RefusesWhatHasNoTransliteration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc, in string
		bad      rune
	}{
		{"Arabic", "محمد العلي", 'م'},
		{"Hindi (Devanagari)", "राजेश कुमार", 'र'},
		{"Cyrillic", "Иван Петров", 'И'},
		{"Greek", "Νίκος", 'Ν'},
		{"Chinese", "王伟", '王'},
		{"emoji", "Ana 🚀", '🚀'},
		{"at sign", "ana@example.com", '@'},
		{"euro sign", "100 €", '€'},
		{"control character", "Ana\x00Silva", 0},
		{"bidirectional override", "Eve\u202egnp", '\u202e'},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, bad, ok := sepaText(tc.in)
			require.False(t, ok)
			require.Equal(t, tc.bad, bad)
		})
	}
}

func TestReferenceOK_FollowsTheEPCReferenceRules(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"PAYOUT-2026-12-0001":   true,
		"po/2026/12 (a+b)?:.,'": true,
		"/PAYOUT":               false,
		"PAYOUT/":               false,
		"PAY//OUT":              false,
		"PAYOUT_1":              false,
		"PAYOUTé":               false,
	} {
		require.Equal(t, want, referenceOK(in), in)
	}
}
