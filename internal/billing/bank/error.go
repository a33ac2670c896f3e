package bank

import (
	"errors"
	"fmt"
	"strings"
)

// Code is the stable reason of an Error. The payout job and the finance
// operator's tools switch on it; the message is for people.
type Code string

// The codes of ParseIBAN and ParseBIC.
const (
	// CodeUnsupportedCountry: an IBAN whose country is not in
	// SupportedCountries.
	CodeUnsupportedCountry Code = "UNSUPPORTED_COUNTRY"
	// CodeBadLength: an IBAN not of its country's length, or a BIC of
	// neither 8 nor 11 characters.
	CodeBadLength Code = "BAD_LENGTH"
	// CodeBadChecksum: an IBAN whose check digits fail ISO 7064 mod-97-10.
	CodeBadChecksum Code = "BAD_CHECKSUM"
	// CodeBadCharacters: a character out of place in an IBAN, a BIC or a
	// reference (a letter where digits go, punctuation, a space inside a
	// reference's forbidden "//").
	CodeBadCharacters Code = "BAD_CHARACTERS"
	// CodeUnknownCountry: a BIC whose country letters are not an ISO
	// 3166-1 country.
	CodeUnknownCountry Code = "UNKNOWN_COUNTRY"
)

// The codes of Pain001 (see Batch for the rule behind each).
const (
	// CodeRequired: a field that must be given is empty or zero.
	CodeRequired Code = "REQUIRED"
	// CodeTooLong: an identifier or remittance text over the schema's
	// length (names are cut to 70 characters instead; see Batch).
	CodeTooLong Code = "TOO_LONG"
	// CodeUnsupportedCharacters: text with a character outside the SEPA
	// Latin character set that has no transliteration (Arabic,
	// Devanagari, Cyrillic, CJK, emoji, most symbols).
	CodeUnsupportedCharacters Code = "UNSUPPORTED_CHARACTERS"
	// CodeUnsupportedCurrency: a batch currency other than EUR or USD.
	CodeUnsupportedCurrency Code = "UNSUPPORTED_CURRENCY"
	// CodeBadRate: a conversion rate out of range.
	CodeBadRate Code = "BAD_RATE"
	// CodeAmountTooSmall: a payout worth less than 0.01 in the batch
	// currency after conversion and rounding down.
	CodeAmountTooSmall Code = "AMOUNT_TOO_SMALL"
	// CodeAmountTooLarge: a payout over 999,999,999.99, or a batch whose
	// control sum would not fit the schema.
	CodeAmountTooLarge Code = "AMOUNT_TOO_LARGE"
	// CodeDuplicateReference: two payouts with one reference (the
	// end-to-end id the bank reports back by).
	CodeDuplicateReference Code = "DUPLICATE_REFERENCE"
	// CodeBICRequired: a creditor outside SEPA (or any creditor of a
	// non-SEPA batch) without a BIC.
	CodeBICRequired Code = "BIC_REQUIRED"
	// CodeBadDate: an execution date before the creation date.
	CodeBadDate Code = "BAD_DATE"
)

// Error is a problem with one value, with a stable Code and an English
// Message. Field names the value in a Batch (e.g.
// "payouts[2].creditor.name"); it is empty from ParseIBAN and ParseBIC.
type Error struct {
	Code    Code
	Field   string
	Message string
}

// Error returns the field, the code and the message.
func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("bank: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("bank: %s: %s: %s", e.Field, e.Code, e.Message)
}

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the Code of the first *Error in err's chain, or "" when
// there is none. A *BatchError's code is that of its first problem.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var b *BatchError
	if errors.As(err, &b) && len(b.Problems) > 0 {
		return b.Problems[0].Code
	}
	return ""
}

// BatchError lists every problem Pain001 found in a batch (the batch's
// own first, then each payout's in order), so the payout job can hold back the payouts concerned (their
// Field starts with "payouts[i]") and build the file again without them.
// No file is produced while there is any.
type BatchError struct {
	Problems []*Error
}

// Error lists the problems.
func (b *BatchError) Error() string {
	msgs := make([]string, len(b.Problems))
	for i, p := range b.Problems {
		msgs[i] = p.Error()
	}
	return fmt.Sprintf("bank: %d problem(s) in the batch: %s", len(b.Problems), strings.Join(msgs, "; "))
}

// Unwrap returns the problems, so errors.As finds each *Error.
func (b *BatchError) Unwrap() []error {
	errs := make([]error, len(b.Problems))
	for i, p := range b.Problems {
		errs[i] = p
	}
	return errs
}
