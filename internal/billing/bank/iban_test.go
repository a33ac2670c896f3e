package bank

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// registryExamples are the example IBANs of the SWIFT IBAN registry (the
// ISO 13616 registration authority), one per supported country.
var registryExamples = map[string]string{
	"AD": "AD1200012030200359100100", "AT": "AT611904300234573201", "BE": "BE68539007547034",
	"BG": "BG80BNBG96611020345678", "CH": "CH9300762011623852957", "CY": "CY17002001280000001200527600",
	"CZ": "CZ6508000000192000145399", "DE": "DE89370400440532013000", "DK": "DK5000400440116243",
	"EE": "EE382200221020145685", "ES": "ES9121000418450200051332", "FI": "FI2112345600000785",
	"FR": "FR1420041010050500013M02606", "GB": "GB29NWBK60161331926819", "GI": "GI75NWBK000000007099453",
	"GR": "GR1601101250000000012300695", "HR": "HR1210010051863000160", "HU": "HU42117730161111101800000000",
	"IE": "IE29AIBK93115212345678", "IS": "IS140159260076545510730339", "IT": "IT60X0542811101000000123456",
	"LI": "LI21088100002324013AA", "LT": "LT121000011101001000", "LU": "LU280019400644750000",
	"LV": "LV80BANK0000435195001", "MC": "MC5811222000010123456789030", "MT": "MT84MALT011000012345MTLCAST001S",
	"NL": "NL91ABNA0417164300", "NO": "NO9386011117947", "PL": "PL61109010140000071219812874",
	"PT": "PT50000201231234567890154", "RO": "RO49AAAA1B31007593840000", "SE": "SE4550000000058398257466",
	"SI": "SI56263300012039086", "SK": "SK3112000000198742637541", "SM": "SM86U0322509800000000270100",
	"VA": "VA59001123000012345678", "AL": "AL47212110090000000235698741", "MD": "MD24AG000225100013104168",
	"ME": "ME25505000012345678951", "MK": "MK07250120000058984", "RS": "RS35260005601001611379",
	"AE": "AE070331234567890123456", "BH": "BH67BMAG00001299123456", "BR": "BR1800360305000010009795493C1",
	"EG": "EG380019000500000000263180002", "GE": "GE29NB0000000101904917", "IL": "IL620108000000099999999",
	"JO": "JO94CBJO0010000000000131000302", "KW": "KW81CBKU0000000000001234560101", "KZ": "KZ86125KZT5004100100",
	"PK": "PK36SCBL0000001123456702", "QA": "QA58DOHB00001234567890ABCDEFG", "SA": "SA0380000000608010167519",
	"TR": "TR330006100519786457841326", "UA": "UA213223130000026007233566001",
}

func TestParseIBAN_AcceptsTheRegistryExampleOfEverySupportedCountry(t *testing.T) {
	t.Parallel()
	for _, c := range SupportedCountries() {
		example, ok := registryExamples[c]
		require.True(t, ok, "no registry example for supported country %s", c)
		iban, err := ParseIBAN(example)
		require.NoError(t, err, c)
		require.Equal(t, example, iban.String())
		require.Equal(t, c, iban.Country())
		require.Equal(t, example[4:], iban.BBAN())
	}
	require.Len(t, registryExamples, len(SupportedCountries()), "an example for a country that is not supported")
}

func TestParseIBAN_NormalisesSpacesAndLowerCaseToTheElectronicFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ desc, in, want, print string }{
		{"print format", "DE89 3704 0044 0532 0130 00", "DE89370400440532013000", "DE89 3704 0044 0532 0130 00"},
		{"lower case and stray spaces", "  gb29 nwbk 6016 1331 9268 19 ", "GB29NWBK60161331926819", "GB29 NWBK 6016 1331 9268 19"},
		{"no-break spaces and a tab, as pasted", "PT50\u00a00002\u00a00123\t1234 5678 9015 4", "PT50000201231234567890154", "PT50 0002 0123 1234 5678 9015 4"},
		{"letters in the BBAN", "fr14 2004 1010 0505 0001 3m02 606", "FR1420041010050500013M02606", "FR14 2004 1010 0505 0001 3M02 606"},
		{"Brazil, 29 characters ending in letters", "BR18 0036 0305 0000 1000 9795 493C 1", "BR1800360305000010009795493C1", "BR18 0036 0305 0000 1000 9795 493C 1"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			iban, err := ParseIBAN(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, iban.String())
			require.Equal(t, tc.print, iban.Print())
		})
	}
}

func TestParseIBAN_RefusesCorruptedIBANsWithAStableCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc string
		in   string
		code Code
	}{
		{"empty", "", CodeBadLength},
		{"only spaces", "   ", CodeBadLength},
		{"one digit mistyped (DE)", "DE89370400440532013001", CodeBadChecksum},
		{"two digits swapped (GB)", "GB29NWBK60161331926891", CodeBadChecksum},
		{"check digits wrong (FR)", "FR1520041010050500013M02606", CodeBadChecksum},
		{"letter mistyped (PT)", "PT50000201231234567890155", CodeBadChecksum},
		{"letter in the BBAN changed (BR)", "BR1800360305000010009795493D1", CodeBadChecksum},
		{"a digit short (DE)", "DE8937040044053201300", CodeBadLength},
		{"a digit too many (GB)", "GB29NWBK601613319268190", CodeBadLength},
		{"another country's length (NO is 15)", "NO93860111179470", CodeBadLength},
		{"hyphens", "DE89-3704-0044-0532-0130-00", CodeBadCharacters},
		{"Arabic-Indic digits", "DE٨٩370400440532013000", CodeBadCharacters},
		{"letters for check digits", "DEAB370400440532013000", CodeBadCharacters},
		{"digits for the country", "1289370400440532013000", CodeBadCharacters},
		{"United States (no IBAN)", "US64SVBKUS6S3300958879", CodeUnsupportedCountry},
		{"India (no IBAN)", "IN12HDFC0000000000001234", CodeUnsupportedCountry},
		{"not a country", "XX89370400440532013000", CodeUnsupportedCountry},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			iban, err := ParseIBAN(tc.in)
			require.Error(t, err)
			require.True(t, iban.IsZero())
			require.Equal(t, tc.code, CodeOf(err), err.Error())
			var e *Error
			require.ErrorAs(t, err, &e)
			require.NotEmpty(t, e.Message)
		})
	}
}

// Mod-97-10 catches every single-character substitution: each digit of a
// real IBAN replaced by each other digit fails the check.
func TestParseIBAN_ChecksumCatchesEverySingleDigitMistake(t *testing.T) {
	t.Parallel()
	const good = "DE89370400440532013000"
	for i := 2; i < len(good); i++ {
		for d := byte('0'); d <= '9'; d++ {
			if good[i] == d {
				continue
			}
			bad := good[:i] + string(d) + good[i+1:]
			_, err := ParseIBAN(bad)
			require.Equal(t, CodeBadChecksum, CodeOf(err), bad)
		}
	}
}

func TestSupportedCountries_AreSortedAndCoverTheSEPAScheme(t *testing.T) {
	t.Parallel()
	got := SupportedCountries()
	require.True(t, slices.IsSorted(got))
	sepa := []string{
		"AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT",
		"LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK", "IS", "LI", "NO",
		"AD", "CH", "GB", "GI", "MC", "SM", "VA", "AL", "MD", "ME", "MK", "RS",
	}
	for _, c := range sepa {
		require.Contains(t, got, c)
		require.True(t, IsSEPA(c), c)
	}
	for _, c := range []string{"AE", "BH", "BR", "EG", "GE", "IL", "JO", "KW", "KZ", "PK", "QA", "SA", "TR", "UA"} {
		require.Contains(t, got, c)
		require.False(t, IsSEPA(c), c)
	}
	require.False(t, IsSEPA("US"))
	require.Len(t, got, len(sepa)+14)
}

func TestIBAN_TextRoundTripParses(t *testing.T) {
	t.Parallel()
	var v struct{ IBAN IBAN }
	require.NoError(t, json.Unmarshal([]byte(`{"IBAN":"pt50 0002 0123 1234 5678 9015 4"}`), &v))
	require.Equal(t, "PT50000201231234567890154", v.IBAN.String())
	out, err := json.Marshal(v)
	require.NoError(t, err)
	require.JSONEq(t, `{"IBAN":"PT50000201231234567890154"}`, string(out))

	err = json.Unmarshal([]byte(`{"IBAN":"PT50000201231234567890155"}`), &v)
	require.Equal(t, CodeBadChecksum, CodeOf(err))
}
