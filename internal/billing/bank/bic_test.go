package bank

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseBIC_AcceptsEightAndElevenCharacters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ desc, in, want, bank, country, location, branch string }{
		{"Deutsche Bank head office", "DEUTDEFF", "DEUTDEFF", "DEUT", "DE", "FF", "XXX"},
		{"Deutsche Bank branch", "DEUTDEFF500", "DEUTDEFF500", "DEUT", "DE", "FF", "500"},
		{"NatWest, digit in the location", "NWBKGB2L", "NWBKGB2L", "NWBK", "GB", "2L", "XXX"},
		{"BNP Paribas with XXX", "BNPAFRPPXXX", "BNPAFRPPXXX", "BNPA", "FR", "PP", "XXX"},
		{"lower case, surrounding spaces", "  cgdiptpl ", "CGDIPTPL", "CGDI", "PT", "PL", "XXX"},
		{"print format with spaces", "DEUT DE FF 500", "DEUTDEFF500", "DEUT", "DE", "FF", "500"},
		{"Kosovo (XK, used by SWIFT)", "RBKOXKPR", "RBKOXKPR", "RBKO", "XK", "PR", "XXX"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			bic, err := ParseBIC(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, bic.String())
			require.Equal(t, tc.bank, bic.BankCode())
			require.Equal(t, tc.country, bic.Country())
			require.Equal(t, tc.location, bic.Location())
			require.Equal(t, tc.branch, bic.Branch())
		})
	}
}

func TestParseBIC_RefusesMalformedBICsWithAStableCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc string
		in   string
		code Code
	}{
		{"empty", "", CodeBadLength},
		{"seven characters", "DEUTDEF", CodeBadLength},
		{"nine characters", "DEUTDEFF5", CodeBadLength},
		{"twelve characters", "DEUTDEFF5000", CodeBadLength},
		{"digit in the bank code", "DEU1DEFF", CodeBadCharacters},
		{"digit in the country", "DEUTD3FF", CodeBadCharacters},
		{"punctuation in the branch", "DEUTDEFF5-0", CodeBadCharacters},
		{"dotless i, which upper-cases to I", "DEUTDEFFıII", CodeBadCharacters},
		{"tab inside", "DEUT\tDEFF", CodeBadCharacters},
		{"Cyrillic letter in the bank code", "DЕUTDEFF", CodeBadCharacters},
		{"not an ISO country", "DEUTZZFF", CodeUnknownCountry},
		{"UK is not ISO 3166-1 (GB is)", "NWBKUK2L", CodeUnknownCountry},
		{"EU is not a country", "ABCDEUFF", CodeUnknownCountry},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			bic, err := ParseBIC(tc.in)
			require.Error(t, err)
			require.True(t, bic.IsZero())
			require.Equal(t, tc.code, CodeOf(err), err.Error())
		})
	}
}

func TestSameCountry_MatchesTheBICCountryToTheIBANCountry(t *testing.T) {
	t.Parallel()
	iban := func(s string) IBAN {
		v, err := ParseIBAN(s)
		require.NoError(t, err)
		return v
	}
	bic := func(s string) BIC {
		v, err := ParseBIC(s)
		require.NoError(t, err)
		return v
	}
	for _, tc := range []struct {
		desc string
		iban IBAN
		bic  BIC
		want bool
	}{
		{"German account, German bank", iban("DE89370400440532013000"), bic("COBADEFFXXX"), true},
		{"British account, British bank", iban("GB29NWBK60161331926819"), bic("NWBKGB2L"), true},
		{"Jersey bank, GB IBAN", iban("GB29NWBK60161331926819"), bic("RBOSJESH"), true},
		{"Réunion bank, FR IBAN", iban("FR1420041010050500013M02606"), bic("BFCORERX"), true},
		{"German account, British bank", iban("DE89370400440532013000"), bic("NWBKGB2L"), false},
		{"Brazilian account, Portuguese bank", iban("BR1800360305000010009795493C1"), bic("CGDIPTPL"), false},
		{"no BIC", iban("DE89370400440532013000"), BIC{}, false},
		{"no IBAN", IBAN{}, bic("DEUTDEFF"), false},
	} {
		require.Equal(t, tc.want, SameCountry(tc.iban, tc.bic), tc.desc)
	}
}
