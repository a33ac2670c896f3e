package bank

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/models"
)

// The schema every generated file must satisfy (testdata/README.md says
// where it came from).
const schema = "testdata/pain.001.001.09.xsd"

// xmllint checks file against the ISO schema and returns xmllint's
// output. Without xmllint the test fails: the schema check is the point
// of these tests, and scripts/test-env.sh installs it.
func xmllint(t *testing.T, file []byte) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatalf("xmllint is not installed, so the pain.001 files cannot be checked against the ISO 20022 schema: run scripts/test-env.sh (it installs the Debian package libxml2-utils)")
	}
	path := filepath.Join(t.TempDir(), "pain.001.xml")
	require.NoError(t, os.WriteFile(path, file, 0o600))
	out, err := exec.Command(bin, "--noout", "--schema", schema, path).CombinedOutput()
	return string(out), err
}

// validate requires file to satisfy the ISO schema.
func validate(t *testing.T, file []byte) {
	t.Helper()
	out, err := xmllint(t, file)
	require.NoError(t, err, "xmllint:\n%s\nfile:\n%s", out, file)
	require.Contains(t, out, "validates")
}

// The check has teeth: a file the schema forbids fails it.
func TestSchema_RefusesFilesOutOfSchema(t *testing.T) {
	t.Parallel()
	file, err := Pain001(setup(t))
	require.NoError(t, err)
	for _, tc := range []struct{ desc, from, to string }{
		{"lower-case currency", `Ccy="EUR"`, `Ccy="eur"`},
		{"no end-to-end id", "<EndToEndId>PO-2026-12-0001</EndToEndId>", ""},
		{"lower-case BIC", "<BICFI>CGDIPTPL</BICFI>", "<BICFI>cgdiptpl</BICFI>"},
		{"unknown payment method", "<PmtMtd>TRF</PmtMtd>", "<PmtMtd>SEPA</PmtMtd>"},
	} {
		bad := strings.Replace(string(file), tc.from, tc.to, 1)
		require.NotEqual(t, string(file), bad, tc.desc)
		out, err := xmllint(t, []byte(bad))
		require.Error(t, err, "%s: %s", tc.desc, out)
		require.Contains(t, out, "fails to validate", tc.desc)
	}
}

func mustIBAN(t *testing.T, s string) IBAN {
	t.Helper()
	v, err := ParseIBAN(s)
	require.NoError(t, err)
	return v
}

func mustBIC(t *testing.T, s string) BIC {
	t.Helper()
	v, err := ParseBIC(s)
	require.NoError(t, err)
	return v
}

// setup returns a valid SEPA batch in EUR of three payouts (Germany, the
// United Kingdom, Portugal) from the platform's Portuguese account.
func setup(t *testing.T) Batch {
	t.Helper()
	return Batch{
		MessageID:     "GPUNEX-PAYOUT-2026-12-02",
		CreatedAt:     time.Date(2026, 12, 2, 9, 30, 15, 0, time.UTC),
		ExecutionDate: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC),
		Debtor: Party{
			Name: "GPUnex Lda",
			IBAN: mustIBAN(t, "PT50000201231234567890154"),
			BIC:  mustBIC(t, "CGDIPTPL"),
			Address: Address{
				Street: "Avenida da Liberdade", BuildingNumber: "110", PostCode: "1250-146", Town: "Lisboa", Country: "PT",
			},
		},
		Currency: EUR,
		Rate:     921_500, // 0.9215 EUR per USDC
		Payouts: []Payout{
			{
				Reference:  "PO-2026-12-0001",
				Amount:     1_234_567_890, // 1234.56789 USDC → 1137.65 EUR
				Creditor:   Party{Name: "Jürgen Groß", IBAN: mustIBAN(t, "DE89370400440532013000"), BIC: mustBIC(t, "COBADEFFXXX")},
				Remittance: "GPUnex payout November 2026",
			},
			{
				Reference:  "PO-2026-12-0002",
				Amount:     100_000_000, // 100 USDC → 92.15 EUR
				Creditor:   Party{Name: "Northern GPU Ltd", IBAN: mustIBAN(t, "GB29NWBK60161331926819")},
				Remittance: "GPUnex payout November 2026",
			},
			{
				Reference: "PO-2026-12-0003",
				Amount:    333_333, // 0.333333 USDC → 0.30 EUR
				Creditor:  Party{Name: "Ana Conceição", IBAN: mustIBAN(t, "PT50000201231234567890154")},
			},
		},
	}
}

// parsed is what the tests read back from a file.
type parsed struct {
	GrpHdr struct {
		MsgID   string `xml:"MsgId"`
		CreDtTm string `xml:"CreDtTm"`
		NbOfTxs string `xml:"NbOfTxs"`
		CtrlSum string `xml:"CtrlSum"`
	} `xml:"CstmrCdtTrfInitn>GrpHdr"`
	PmtInf struct {
		NbOfTxs     string `xml:"NbOfTxs"`
		CtrlSum     string `xml:"CtrlSum"`
		SvcLvl      string `xml:"PmtTpInf>SvcLvl>Cd"`
		ReqdExctnDt string `xml:"ReqdExctnDt>Dt"`
		DbtrIBAN    string `xml:"DbtrAcct>Id>IBAN"`
		DbtrBIC     string `xml:"DbtrAgt>FinInstnId>BICFI"`
		ChrgBr      string `xml:"ChrgBr"`
		Txs         []struct {
			EndToEndID string `xml:"PmtId>EndToEndId"`
			Amount     struct {
				Ccy   string `xml:"Ccy,attr"`
				Value string `xml:",chardata"`
			} `xml:"Amt>InstdAmt"`
			BIC   string `xml:"CdtrAgt>FinInstnId>BICFI"`
			Name  string `xml:"Cdtr>Nm"`
			IBAN  string `xml:"CdtrAcct>Id>IBAN"`
			Ustrd string `xml:"RmtInf>Ustrd"`
		} `xml:"CdtTrfTxInf"`
	} `xml:"CstmrCdtTrfInitn>PmtInf"`
}

func parse(t *testing.T, file []byte) parsed {
	t.Helper()
	var p parsed
	require.NoError(t, xml.Unmarshal(file, &p))
	return p
}

// cents reads "1137.65" as 113765 without a float.
func cents(t *testing.T, s string) int64 {
	t.Helper()
	whole, frac, ok := strings.Cut(s, ".")
	require.True(t, ok, s)
	require.Len(t, frac, 2, "exactly two decimals: %s", s)
	w, err := strconv.ParseInt(whole, 10, 64)
	require.NoError(t, err)
	f, err := strconv.ParseInt(frac, 10, 64)
	require.NoError(t, err)
	return w*100 + f
}

// problems returns the Field → Code of a *BatchError.
func problems(t *testing.T, err error) map[string]Code {
	t.Helper()
	var b *BatchError
	require.ErrorAs(t, err, &b)
	got := map[string]Code{}
	for _, p := range b.Problems {
		require.NotEmpty(t, p.Message)
		got[p.Field] = p.Code
	}
	return got
}

func TestPain001_ABatchOfThreePayoutsValidatesAgainstTheISOSchema(t *testing.T) {
	t.Parallel()
	file, err := Pain001(setup(t))
	require.NoError(t, err)
	validate(t, file)

	require.True(t, strings.HasPrefix(string(file), `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<Document xmlns="`+Namespace+`">`))
	p := parse(t, file)
	require.Equal(t, "GPUNEX-PAYOUT-2026-12-02", p.GrpHdr.MsgID)
	require.Equal(t, "2026-12-02T09:30:15Z", p.GrpHdr.CreDtTm)
	require.Equal(t, "3", p.GrpHdr.NbOfTxs)
	require.Equal(t, "3", p.PmtInf.NbOfTxs)
	require.Equal(t, "SEPA", p.PmtInf.SvcLvl)
	require.Equal(t, "SLEV", p.PmtInf.ChrgBr)
	require.Equal(t, "2026-12-03", p.PmtInf.ReqdExctnDt)
	require.Equal(t, "PT50000201231234567890154", p.PmtInf.DbtrIBAN)
	require.Equal(t, "CGDIPTPL", p.PmtInf.DbtrBIC)
	require.Len(t, p.PmtInf.Txs, 3)

	tx := p.PmtInf.Txs
	require.Equal(t, "PO-2026-12-0001", tx[0].EndToEndID)
	require.Equal(t, "EUR", tx[0].Amount.Ccy)
	require.Equal(t, "1137.65", tx[0].Amount.Value)
	require.Equal(t, "COBADEFFXXX", tx[0].BIC)
	require.Equal(t, "Jurgen Gross", tx[0].Name)
	require.Equal(t, "DE89370400440532013000", tx[0].IBAN)
	require.Equal(t, "GPUnex payout November 2026", tx[0].Ustrd)
	require.Equal(t, "92.15", tx[1].Amount.Value)
	require.Empty(t, tx[1].BIC, "SEPA routes by IBAN: no BIC given, none written")
	require.Equal(t, "0.30", tx[2].Amount.Value)
	require.Equal(t, "Ana Conceicao", tx[2].Name)
	require.Empty(t, tx[2].Ustrd)
}

func TestPain001_AmountsSumToTheControlSumExactly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Amounts whose binary floats do not add up: 0.1 + 0.2 + 0.7 … at par.
	b.Currency, b.Rate = EUR, RateOne
	b.Payouts = nil
	var want int64
	for i, micro := range []models.USDC{100_000, 200_000, 700_000, 1_100_000, 2_200_000, 3_300_000, 999_999_999_990_000, 10_000} {
		b.Payouts = append(b.Payouts, Payout{
			Reference: "PO-SUM-" + strconv.Itoa(i),
			Amount:    micro,
			Creditor:  Party{Name: "Provider " + strconv.Itoa(i), IBAN: mustIBAN(t, "DE89370400440532013000")},
		})
		c, _, err := Convert(micro, RateOne)
		require.NoError(t, err)
		want += int64(c)
	}
	file, err := Pain001(b)
	require.NoError(t, err)
	validate(t, file)

	p := parse(t, file)
	var sum int64
	for _, tx := range p.PmtInf.Txs {
		sum += cents(t, tx.Amount.Value)
	}
	require.Equal(t, want, sum)
	require.Equal(t, sum, cents(t, p.GrpHdr.CtrlSum))
	require.Equal(t, sum, cents(t, p.PmtInf.CtrlSum))
	require.Equal(t, "1000000007.60", p.GrpHdr.CtrlSum)
}

// The rounding rule: down to the cent. 0.005 USDC is 0.00, which no
// transfer can carry, so the payout is refused (AMOUNT_TOO_SMALL) and stays
// in the provider's balance; 1.005 USDC is 1.00 (settling 1.000000).
func TestPain001_HalfACentRoundsDownAndZeroIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.Rate = RateOne
	b.Payouts[0].Amount = 1_005_000
	b.Payouts[1].Amount = 5_000
	b.Payouts[2].Amount = 15_000

	_, err := Pain001(b)
	require.Equal(t, map[string]Code{"payouts[1].amount": CodeAmountTooSmall}, problems(t, err))
	require.Contains(t, err.Error(), "0.005000 USDC at 1.000000 is 0.00 EUR once rounded down")

	b.Payouts = append(b.Payouts[:1], b.Payouts[2])
	file, err := Pain001(b)
	require.NoError(t, err)
	validate(t, file)
	p := parse(t, file)
	require.Equal(t, "1.00", p.PmtInf.Txs[0].Amount.Value)
	require.Equal(t, "0.01", p.PmtInf.Txs[1].Amount.Value)
	require.Equal(t, "1.01", p.GrpHdr.CtrlSum)
}

// Names are cut to 70 characters (what banks hold); identifiers and
// remittance text over their length are refused.
func TestPain001_ATooLongNameIsCutTo70AndOtherFieldsAreRefused(t *testing.T) {
	t.Parallel()
	long := "Companhia Portuguesa de Computação Acelerada e Serviços de Inteligência Artificial, Sociedade Anónima"
	b := setup(t)
	b.Payouts[2].Creditor.Name = long
	file, err := Pain001(b)
	require.NoError(t, err)
	validate(t, file)
	name := parse(t, file).PmtInf.Txs[2].Name
	require.Equal(t, "Companhia Portuguesa de Computacao Acelerada e Servicos de Inteligenci", name)
	require.Len(t, name, 70)

	b = setup(t)
	b.MessageID = strings.Repeat("M", 36)
	b.Payouts[0].Reference = strings.Repeat("R", 36)
	b.Payouts[1].Remittance = strings.Repeat("x", 141)
	b.Debtor.Address.Town = strings.Repeat("T", 36)
	_, err = Pain001(b)
	require.Equal(t, map[string]Code{
		"messageId":             CodeTooLong,
		"payouts[0].reference":  CodeTooLong,
		"payouts[1].remittance": CodeTooLong,
		"debtor.address.town":   CodeTooLong,
	}, problems(t, err))
}

// Names in another script are refused, not guessed: the creditor's bank
// compares the name with its account holder's (verification of payee), so
// the operator asks the provider for the name in Latin letters as the
// bank holds it. Latin names with diacritics are transliterated.
func TestPain001_ArabicAndHindiNamesAreRefusedLatinDiacriticsTransliterated(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.Payouts[0].Creditor.Name = "محمد العلي"
	b.Payouts[1].Creditor.Name = "राजेश कुमार"
	b.Payouts[2].Remittance = "شكرا"
	_, err := Pain001(b)
	require.Equal(t, map[string]Code{
		"payouts[0].creditor.name": CodeUnsupportedCharacters,
		"payouts[1].creditor.name": CodeUnsupportedCharacters,
		"payouts[2].remittance":    CodeUnsupportedCharacters,
	}, problems(t, err))
	require.Contains(t, err.Error(), "in Latin letters")

	b = setup(t)
	b.Payouts[0].Creditor.Name = "Mohammed Al-Ali"
	b.Payouts[1].Creditor.Name = "Rajesh Kumar"
	b.Payouts[2].Creditor.Name = "Zoë Ångström & Søn"
	file, err := Pain001(b)
	require.NoError(t, err)
	validate(t, file)
	require.Equal(t, "Zoe Angstrom + Son", parse(t, file).PmtInf.Txs[2].Name)
}

// A batch in USD, or with a creditor outside SEPA, is not a SEPA credit
// transfer: no service level, shared charges, a BIC for every creditor and
// an address for those outside SEPA and for the platform.
func TestPain001_ANonSEPABatchValidatesWithoutServiceLevel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.Currency, b.Rate = USD, RateOne
	b.Payouts[1].Creditor = Party{
		Name:    "Nuvem GPU Ltda",
		IBAN:    mustIBAN(t, "BR1800360305000010009795493C1"),
		BIC:     mustBIC(t, "BRASBRRJ"),
		Address: Address{Street: "Avenida Paulista", BuildingNumber: "1000", PostCode: "01310-100", Town: "São Paulo", Country: "BR"},
	}
	b.Payouts[2].Creditor = Party{
		Name:    "Desert Compute FZ LLC",
		IBAN:    mustIBAN(t, "AE070331234567890123456"),
		BIC:     mustBIC(t, "EBILAEAD"),
		Address: Address{Town: "Dubai", Country: "AE"},
	}
	file, err := Pain001(b)
	require.NoError(t, err)
	validate(t, file)
	p := parse(t, file)
	require.Empty(t, p.PmtInf.SvcLvl)
	require.Equal(t, "SHAR", p.PmtInf.ChrgBr)
	require.Equal(t, "USD", p.PmtInf.Txs[0].Amount.Ccy)
	require.Equal(t, "1234.56", p.PmtInf.Txs[0].Amount.Value)
	require.Contains(t, string(file), "<TwnNm>Sao Paulo</TwnNm>")

	b.Payouts[2].Creditor.BIC = BIC{}
	b.Payouts[2].Creditor.Address = Address{}
	b.Debtor.Address = Address{}
	_, err = Pain001(b)
	require.Equal(t, map[string]Code{
		"debtor.address":              CodeRequired,
		"payouts[2].creditor.bic":     CodeBICRequired,
		"payouts[2].creditor.address": CodeRequired,
	}, problems(t, err))
}

func TestPain001_ReportsEveryProblemOfTheBatchAtOnce(t *testing.T) {
	t.Parallel()
	_, err := Pain001(Batch{Currency: "GBP"})
	require.Equal(t, map[string]Code{
		"messageId":     CodeRequired,
		"createdAt":     CodeRequired,
		"executionDate": CodeRequired,
		"currency":      CodeUnsupportedCurrency,
		"rate":          CodeBadRate,
		"payouts":       CodeRequired,
		"debtor.name":   CodeRequired,
		"debtor.iban":   CodeRequired,
		"debtor.bic":    CodeRequired,
	}, problems(t, err))
	require.Equal(t, CodeRequired, CodeOf(err))

	b := setup(t)
	b.ExecutionDate = b.CreatedAt.AddDate(0, 0, -1)
	b.Payouts[1].Reference = b.Payouts[0].Reference
	b.Payouts[2].Reference = "PO//3"
	b.Payouts[2].Creditor.IBAN = IBAN{}
	_, err = Pain001(b)
	require.Equal(t, map[string]Code{
		"executionDate":            CodeBadDate,
		"payouts[1].reference":     CodeDuplicateReference,
		"payouts[2].reference":     CodeBadCharacters,
		"payouts[2].creditor.iban": CodeRequired,
	}, problems(t, err))

	b = setup(t)
	b.Debtor.Address = Address{Street: "Rua Augusta"}
	b.Payouts[0].Creditor.Address = Address{Town: "Berlin", Country: "de"}
	b.Payouts[1].Creditor.Address = Address{Town: "London", Country: "UK"}
	_, err = Pain001(b)
	require.Equal(t, map[string]Code{
		"debtor.address.town":                 CodeRequired,
		"debtor.address.country":              CodeRequired,
		"payouts[0].creditor.address.country": CodeUnknownCountry,
		"payouts[1].creditor.address.country": CodeUnknownCountry,
	}, problems(t, err))
}
