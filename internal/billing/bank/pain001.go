package bank

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"time"

	"github.com/biter777/countries"

	"github.com/gpunex/gpunex/models"
)

// Namespace is the XML namespace of the files Pain001 writes: ISO 20022
// pain.001.001.09, customer credit transfer initiation (2019 edition).
const Namespace = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"

// The schema's and the EPC's lengths, in characters (every character of
// a file is ASCII after transliteration, so bytes too).
const (
	maxReference  = 35  // message id, end-to-end id (Max35Text)
	maxName       = 70  // a party's name (the EPC's limit within Max140Text)
	maxRemittance = 140 // unstructured remittance information (Max140Text)
	maxStreet     = 70
	maxBuilding   = 16
	maxPostCode   = 16
	maxTown       = 35
)

// maxControlSum bounds the control sum: DecimalNumber has 18 digits,
// two of them decimals here.
const maxControlSum Cents = 999_999_999_999_999_999

// Batch is one payout run for the finance operator's bank: one file with
// one payment information block, debited from the platform's account.
type Batch struct {
	// MessageID identifies the file at the bank, unique per file (the bank
	// refuses a repeated one): up to 35 characters of the SEPA set, no
	// leading, trailing or double "/". It is also the payment information
	// id.
	MessageID string
	// CreatedAt is when the file is made, from the injected clock; it is
	// written in UTC to the second.
	CreatedAt time.Time
	// ExecutionDate is the requested execution date: its calendar date in
	// its own location. It may not be before CreatedAt's date there.
	ExecutionDate time.Time
	// Debtor is the platform: name, IBAN and BIC from configuration. Its
	// address is required when any creditor's account is outside the EEA
	// (the EU transfer-of-funds regulation makes the payer's address
	// travel with such payments); give it always.
	Debtor Party
	// Currency is the currency of the debtor account and of every amount
	// in the file: EUR or USD.
	Currency Currency
	// Rate converts each payout's USDC into Currency (see Convert):
	// RateOne for USD at par.
	Rate Rate
	// Payouts are the credit transfers, in this order in the file.
	Payouts []Payout
}

// Party is an account holder: the platform as debtor or a provider as
// creditor.
type Party struct {
	// Name is the account holder's name as the bank holds it. It is
	// transliterated into the SEPA Latin character set and cut to 70
	// characters (see Pain001).
	Name string
	// IBAN is the account; required.
	IBAN IBAN
	// BIC is the account's bank: required for the debtor, for creditors
	// outside SEPA and for every creditor of a batch that is not SEPA;
	// optional otherwise (SEPA routes by IBAN).
	BIC BIC
	// Address is optional for SEPA creditors; see Batch.Debtor and
	// Pain001 for when it is required.
	Address Address
}

// Address is a structured postal address, as the EPC requires from
// November 2026 (town and country at least).
type Address struct {
	Street         string // up to 70 characters
	BuildingNumber string // up to 16
	PostCode       string // up to 16
	Town           string // required when any field is given; up to 35
	Country        string // ISO 3166-1 alpha-2; required when any field is given
}

// IsZero reports whether no field of the address is given.
func (a Address) IsZero() bool { return a == Address{} }

// Payout is one credit transfer to a provider.
type Payout struct {
	// Reference is the payout's reference, written as the end-to-end id
	// that the bank reports back (returns, statements) and the provider's
	// bank shows: up to 35 characters of the SEPA set, unique in the
	// batch, never transliterated (it must match the payout job's record).
	Reference string
	// Amount is what is owed, in micro-USDC; the file carries it
	// converted at Batch.Rate and rounded down to the cent (Convert).
	Amount models.USDC
	// Creditor is the provider's bank account.
	Creditor Party
	// Remittance is the text the provider sees on the statement, up to 140
	// characters after transliteration; optional.
	Remittance string
}

// Pain001 writes the batch as an ISO 20022 pain.001.001.09 customer credit
// transfer initiation, UTF-8 XML, that the operator uploads to the bank.
//
// The file has a group header (message id, creation time, number of
// transactions, control sum, the platform as initiating party) and one
// payment information block: transfer (TRF), the same count and control
// sum, the requested execution date, the platform as debtor with its
// IBAN and BIC, and one credit transfer per payout (end-to-end id = the
// payout's reference, the instructed amount with two decimals, the
// creditor's BIC when given, name, address when given, IBAN, and
// unstructured remittance information when given).
//
// A batch in EUR whose debtor and creditors all have accounts in SEPA
// countries is a SEPA credit transfer: service level SEPA, charges SLEV.
// Any other batch (USD, or one creditor outside SEPA) carries no service
// level and shares charges (SHAR), and every creditor needs a BIC and,
// outside SEPA, an address. The payout job should therefore put SEPA
// creditors paid in EUR in a batch of their own (IsSEPA tells which).
//
// Text: every name, address field and remittance text is transliterated
// into the SEPA Latin character set (see the package documentation); text
// in another script is refused (UNSUPPORTED_CHARACTERS) rather than
// guessed, since a bank compares the creditor's name with the account
// holder's. A name longer than 70 characters is cut to 70 (the length
// banks hold); a longer reference, message id, remittance or address
// field is refused (TOO_LONG), since cutting those would change what they
// identify or say.
//
// Every problem of the batch is reported at once in a *BatchError, each
// problem an *Error naming its field; no file is written while there is
// any.
func Pain001(batch Batch) ([]byte, error) {
	c := checker{}
	doc := c.document(batch)
	if len(c.problems) > 0 {
		return nil, &BatchError{Problems: c.problems}
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("bank: encode pain.001: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// checker collects the problems found while the document is built.
type checker struct {
	problems []*Error
}

func (c *checker) add(field string, code Code, format string, args ...any) {
	c.problems = append(c.problems, &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) document(b Batch) document {
	c.reference("messageId", b.MessageID)
	if b.CreatedAt.IsZero() {
		c.add("createdAt", CodeRequired, "the creation time is required")
	}
	execution := b.ExecutionDate.Format(time.DateOnly)
	if b.ExecutionDate.IsZero() {
		c.add("executionDate", CodeRequired, "the requested execution date is required")
	} else if !b.CreatedAt.IsZero() && execution < b.CreatedAt.In(b.ExecutionDate.Location()).Format(time.DateOnly) {
		c.add("executionDate", CodeBadDate, "the execution date %s is before the file's creation", execution)
	}
	if b.Currency != EUR && b.Currency != USD {
		c.add("currency", CodeUnsupportedCurrency, "a batch is in EUR or USD, not %q", b.Currency)
	}
	rateOK := b.Rate > 0 && b.Rate <= MaxRate
	if !rateOK {
		c.add("rate", CodeBadRate, "a rate is above 0 and at most 10000, not %s", b.Rate)
	}
	if len(b.Payouts) == 0 {
		c.add("payouts", CodeRequired, "a batch has at least one payout")
	}

	// A missing IBAN is reported as such and does not make the batch
	// lose its SEPA service level.
	sepa := b.Currency == EUR && (b.Debtor.IBAN.IsZero() || b.Debtor.IBAN.SEPA())
	outsideEEA := false
	for _, p := range b.Payouts {
		sepa = sepa && (p.Creditor.IBAN.IsZero() || p.Creditor.IBAN.SEPA())
		outsideEEA = outsideEEA || (!p.Creditor.IBAN.IsZero() && !p.Creditor.IBAN.eea())
	}

	debtor := c.party("debtor", b.Debtor)
	if b.Debtor.BIC.IsZero() {
		c.add("debtor.bic", CodeRequired, "the platform's BIC is required")
	}
	if outsideEEA && b.Debtor.Address.IsZero() {
		c.add("debtor.address", CodeRequired, "the platform's address is required when a creditor's account is outside the EEA")
	}

	var sum Cents
	seen := make(map[string]int, len(b.Payouts))
	txs := make([]transfer, 0, len(b.Payouts))
	for i, p := range b.Payouts {
		field := fmt.Sprintf("payouts[%d]", i)
		if c.reference(field+".reference", p.Reference) {
			if j, dup := seen[p.Reference]; dup {
				c.add(field+".reference", CodeDuplicateReference, "reference %q is also payouts[%d]'s", p.Reference, j)
			}
			seen[p.Reference] = i
		}
		var cents Cents
		if rateOK {
			var err error
			cents, _, err = Convert(p.Amount, b.Rate)
			switch {
			case err != nil:
				c.add(field+".amount", CodeOf(err), "%s", err.(*Error).Message)
			case cents == 0:
				c.add(field+".amount", CodeAmountTooSmall,
					"%s USDC at %s is 0.00 %s once rounded down to the cent; a transfer is at least 0.01", p.Amount, b.Rate, b.Currency)
			case sum > maxControlSum-cents:
				c.add(field+".amount", CodeAmountTooLarge, "the batch's control sum would exceed the schema's 18 digits")
			default:
				sum += cents
			}
		}
		creditor := c.party(field+".creditor", p.Creditor)
		if p.Creditor.BIC.IsZero() && !sepa {
			c.add(field+".creditor.bic", CodeBICRequired, "a BIC is required for a transfer that is not a SEPA credit transfer")
		}
		if !p.Creditor.IBAN.IsZero() && !p.Creditor.IBAN.SEPA() && p.Creditor.Address.IsZero() {
			c.add(field+".creditor.address", CodeRequired, "the creditor's address is required for an account outside SEPA")
		}
		tx := transfer{
			PmtID:    paymentID{EndToEndID: p.Reference},
			Amt:      amount{InstdAmt: instructedAmount{Ccy: string(b.Currency), Value: cents.String()}},
			Cdtr:     creditor.party,
			CdtrAcct: creditor.account,
			CdtrAgt:  creditor.agent,
		}
		if p.Remittance != "" {
			if text, ok := c.text(field+".remittance", p.Remittance, maxRemittance); ok && text != "" {
				tx.RmtInf = &remittance{Ustrd: text}
			}
		}
		txs = append(txs, tx)
	}

	count := strconv.Itoa(len(b.Payouts))
	pi := paymentInstruction{
		PmtInfID:    b.MessageID,
		PmtMtd:      "TRF",
		NbOfTxs:     count,
		CtrlSum:     sum.String(),
		ReqdExctnDt: dateChoice{Dt: execution},
		Dbtr:        debtor.party,
		DbtrAcct:    debtor.account,
		DbtrAgt:     debtor.agent,
		ChrgBr:      "SHAR",
		CdtTrfTxInf: txs,
	}
	if sepa {
		pi.PmtTpInf = &paymentType{SvcLvl: serviceLevel{Cd: "SEPA"}}
		pi.ChrgBr = "SLEV"
	}
	return document{Initn: initiation{
		GrpHdr: groupHeader{
			MsgID:    b.MessageID,
			CreDtTm:  b.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"),
			NbOfTxs:  count,
			CtrlSum:  sum.String(),
			InitgPty: party{Nm: debtor.party.Nm},
		},
		PmtInf: pi,
	}}
}

// reference checks an identifier and reports whether it passed.
func (c *checker) reference(field, s string) bool {
	switch {
	case s == "":
		c.add(field, CodeRequired, "required")
	case len(s) > maxReference:
		c.add(field, CodeTooLong, "%q has %d characters; at most %d", s, len([]rune(s)), maxReference)
	case !referenceOK(s):
		c.add(field, CodeBadCharacters, "%q: a reference has letters, digits, spaces and / - ? : ( ) . , ' + only, and no leading, trailing or double /", s)
	default:
		return true
	}
	return false
}

// text transliterates a free text and checks its length.
func (c *checker) text(field, s string, limit int) (string, bool) {
	t, bad, ok := sepaText(s)
	if !ok {
		c.add(field, CodeUnsupportedCharacters,
			"%q (U+%04X) is outside the SEPA Latin character set and has no transliteration; give the text in Latin letters", bad, bad)
		return "", false
	}
	if len(t) > limit {
		c.add(field, CodeTooLong, "%d characters once transliterated; at most %d", len(t), limit)
		return "", false
	}
	return t, true
}

// partyXML is a Party as the file carries it.
type partyXML struct {
	party   party
	account account
	agent   *agent
}

func (c *checker) party(field string, p Party) partyXML {
	out := partyXML{}
	name, bad, ok := sepaText(p.Name)
	switch {
	case !ok:
		c.add(field+".name", CodeUnsupportedCharacters,
			"%q (U+%04X) is outside the SEPA Latin character set and has no transliteration; ask for the account holder's name in Latin letters, as the bank holds it", bad, bad)
	case name == "":
		c.add(field+".name", CodeRequired, "the account holder's name is required")
	case len(name) > maxName:
		name = trimRight(name[:maxName])
	}
	out.party.Nm = name
	if !p.Address.IsZero() {
		out.party.PstlAdr = c.address(field+".address", p.Address)
	}
	if p.IBAN.IsZero() {
		c.add(field+".iban", CodeRequired, "the IBAN is required")
	}
	out.account = account{ID: accountID{IBAN: p.IBAN.String()}}
	if !p.BIC.IsZero() {
		out.agent = &agent{FinInstnID: finInstn{BICFI: p.BIC.String()}}
	}
	return out
}

func (c *checker) address(field string, a Address) *postalAddress {
	out := &postalAddress{}
	out.StrtNm, _ = c.text(field+".street", a.Street, maxStreet)
	out.BldgNb, _ = c.text(field+".buildingNumber", a.BuildingNumber, maxBuilding)
	out.PstCd, _ = c.text(field+".postCode", a.PostCode, maxPostCode)
	town, ok := c.text(field+".town", a.Town, maxTown)
	if ok && town == "" {
		c.add(field+".town", CodeRequired, "an address has a town")
	}
	out.TwnNm = town
	switch cc := countries.ByName(a.Country); {
	case a.Country == "":
		c.add(field+".country", CodeRequired, "an address has a country")
	case len(a.Country) != 2 || !cc.IsValid() || cc.Alpha2() != a.Country:
		c.add(field+".country", CodeUnknownCountry, "%q is not an ISO 3166-1 alpha-2 country code", a.Country)
	}
	out.Ctry = a.Country
	return out
}

func trimRight(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// The XML of pain.001.001.09, as far as Pain001 fills it, in the
// schema's element order.
type document struct {
	XMLName xml.Name   `xml:"urn:iso:std:iso:20022:tech:xsd:pain.001.001.09 Document"`
	Initn   initiation `xml:"CstmrCdtTrfInitn"`
}

type initiation struct {
	GrpHdr groupHeader        `xml:"GrpHdr"`
	PmtInf paymentInstruction `xml:"PmtInf"`
}

type groupHeader struct {
	MsgID    string `xml:"MsgId"`
	CreDtTm  string `xml:"CreDtTm"`
	NbOfTxs  string `xml:"NbOfTxs"`
	CtrlSum  string `xml:"CtrlSum"`
	InitgPty party  `xml:"InitgPty"`
}

type party struct {
	Nm      string         `xml:"Nm"`
	PstlAdr *postalAddress `xml:"PstlAdr,omitempty"`
}

type postalAddress struct {
	StrtNm string `xml:"StrtNm,omitempty"`
	BldgNb string `xml:"BldgNb,omitempty"`
	PstCd  string `xml:"PstCd,omitempty"`
	TwnNm  string `xml:"TwnNm,omitempty"`
	Ctry   string `xml:"Ctry,omitempty"`
}

type paymentInstruction struct {
	PmtInfID    string       `xml:"PmtInfId"`
	PmtMtd      string       `xml:"PmtMtd"`
	NbOfTxs     string       `xml:"NbOfTxs"`
	CtrlSum     string       `xml:"CtrlSum"`
	PmtTpInf    *paymentType `xml:"PmtTpInf,omitempty"`
	ReqdExctnDt dateChoice   `xml:"ReqdExctnDt"`
	Dbtr        party        `xml:"Dbtr"`
	DbtrAcct    account      `xml:"DbtrAcct"`
	DbtrAgt     *agent       `xml:"DbtrAgt"`
	ChrgBr      string       `xml:"ChrgBr"`
	CdtTrfTxInf []transfer   `xml:"CdtTrfTxInf"`
}

type paymentType struct {
	SvcLvl serviceLevel `xml:"SvcLvl"`
}

type serviceLevel struct {
	Cd string `xml:"Cd"`
}

type dateChoice struct {
	Dt string `xml:"Dt"`
}

type account struct {
	ID accountID `xml:"Id"`
}

type accountID struct {
	IBAN string `xml:"IBAN"`
}

type agent struct {
	FinInstnID finInstn `xml:"FinInstnId"`
}

type finInstn struct {
	BICFI string `xml:"BICFI"`
}

type transfer struct {
	PmtID    paymentID   `xml:"PmtId"`
	Amt      amount      `xml:"Amt"`
	CdtrAgt  *agent      `xml:"CdtrAgt,omitempty"`
	Cdtr     party       `xml:"Cdtr"`
	CdtrAcct account     `xml:"CdtrAcct"`
	RmtInf   *remittance `xml:"RmtInf,omitempty"`
}

type paymentID struct {
	EndToEndID string `xml:"EndToEndId"`
}

type amount struct {
	InstdAmt instructedAmount `xml:"InstdAmt"`
}

type instructedAmount struct {
	Ccy   string `xml:"Ccy,attr"`
	Value string `xml:",chardata"`
}

type remittance struct {
	Ustrd string `xml:"Ustrd"`
}
