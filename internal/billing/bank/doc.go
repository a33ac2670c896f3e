// Package bank pays providers by bank transfer: it checks the account
// numbers providers give (ParseIBAN, ParseBIC, SameCountry) and writes the
// payout job's batches as ISO 20022 credit transfer files that the
// finance operator uploads to the platform's bank (Pain001).
//
// # Using it
//
// Onboarding parses what a provider types with ParseIBAN and ParseBIC and
// stores the String forms; IBAN and BIC are also encoding.TextUnmarshalers,
// so configuration and JSON carry checked values. The payout job builds a
// Batch (the platform's account from configuration as Debtor, one Payout
// per provider, the rate it converted at) and calls Pain001. On a
// *BatchError it holds back the payouts named in the problems' Field
// ("payouts[i]…", each with a Code) and builds the file again without
// them. On success it debits each provider's balance by the settled amount
// Convert returns for the payout (the same computation Pain001 makes).
//
// # Decisions
//
// IBAN and BIC checks are our own, not a library's. The Go module proxy
// offers IBAN packages such as github.com/almerlucke/go-iban, whose last
// change is from 2022: a length table that is not kept up to date with the
// SWIFT IBAN registry is the one part that goes stale (countries join
// SEPA: Albania, Moldova, Montenegro, North Macedonia and Serbia lately),
// and the rest, the ISO 7064 mod-97-10 check, is a dozen lines. So the
// table (iban.go) is ours, every entry tested with the registry's example
// IBAN. The BIC's country is checked against github.com/biter777/countries,
// the ISO 3166-1 table internal/geo already uses.
//
// Supported countries (SupportedCountries): every country in the
// geographical scope of the SEPA schemes (the EU, Iceland, Liechtenstein,
// Norway, Andorra, Switzerland, the United Kingdom, Gibraltar, Monaco, San
// Marino, Vatican City, Albania, Moldova, Montenegro, North Macedonia,
// Serbia; their territories pay with these countries' IBANs), and, paid by
// international transfer, the IBAN countries GPUnex expects providers in
// outside SEPA: the United Arab Emirates, Bahrain, Brazil, Egypt, Georgia,
// Israel, Jordan, Kuwait, Kazakhstan, Pakistan, Qatar, Saudi Arabia, Turkey
// and Ukraine. Adding one is a line in the table and its registry example
// in the test. Countries without IBANs (the US, India) are not bank
// payouts: those providers are paid in USDC.
//
// Message version: pain.001.001.09 (ISO 20022, 2019 edition), not
// pain.001.001.03. The EPC's SEPA credit transfer implementation
// guidelines moved to the 2019 edition in November 2023, SWIFT's
// cross-border (CBPR+) customer messages use it, and the German banks,
// the largest community still on .03, announced its end for November
// 2025. A bank that still prefers .03 takes the same content; the
// structs in pain001.go are the only part that would change. Its official schema is also the one readily at hand: Debian
// packages it (testdata/README.md), while the .03 schema Debian has is a
// German SEPA-only restriction of it. The ISO schema checks structure and
// lengths; the EPC's further rules (the character set, 70-character
// names, one remittance line, the reference pattern) are this package's
// and have their own tests.
//
// Currency and conversion: payouts are owed in USDC, but a bank transfer
// moves a fiat currency from the platform's account, so a Batch is in
// that account's currency, EUR or USD, and carries the Rate the operator
// converted (or will convert) the USDC at, in millionths per USDC. A
// European operator holds EUR and pays SEPA transfers; a USD account pays
// USD transfers at RateOne (USDC at par) or at the rate its off-ramp gave.
// The conversion is here, in integers (Convert), rather than at each
// caller, so that the money arithmetic is in one tested place.
//
// Rounding: down to the cent (floor; amounts are never negative), after
// converting the exact micro-USDC amount. A payout never sends more than is
// owed; what is left, worth less than a cent, is not lost but stays in the
// provider's balance, because the job debits only the settled part. So
// 0.005 USDC at par is 0.00, which is refused (AMOUNT_TOO_SMALL: the job
// leaves such payouts in the balance), and 1.005 USDC is 1.00. No float is
// used anywhere: amounts are models.USDC and Cents, multiplied in 128 bits.
//
// Character set: SEPA files carry the EPC's Latin set (a-z A-Z 0-9 / - ?
// : ( ) . , ' + and space). Names, addresses and remittance text are
// transliterated into it: diacritics dropped (é → e, Ş → S, ễ → e),
// letters that do not decompose spelt out (ß → ss, Æ → AE, Ø → O, Ł → L,
// Þ → TH), & → +, quotation marks → ', _ and dashes → -, ; → ,, brackets
// → parentheses, white space collapsed. Text in another script (Arabic,
// Devanagari, Cyrillic, Greek, CJK) and symbols such as @, € or emoji are
// refused (UNSUPPORTED_CHARACTERS), not guessed: banks compare the
// creditor's name with the account holder's (verification of payee is
// mandatory in the euro area since October 2025), and the account holder's
// name in Latin letters is what the provider's own bank holds, so the
// provider is asked for it. References (the message id and each payout's
// end-to-end id) are never changed, only checked, since they must match
// the job's records. The same rules apply to non-SEPA batches: banks send
// those on in the SWIFT character set, which the SEPA set is within.
//
// Lengths: a name over 70 characters is cut to 70 (the length banks keep;
// a longer legal name still identifies its holder), every other field over
// its limit is refused (TOO_LONG): a cut reference would no longer match,
// and a cut remittance text or address would say something else.
//
// Errors: every problem is an *Error with a stable Code (UNSUPPORTED_COUNTRY,
// BAD_LENGTH, BAD_CHECKSUM, BAD_CHARACTERS, UNKNOWN_COUNTRY, REQUIRED,
// TOO_LONG, UNSUPPORTED_CHARACTERS, …) and an English message; Pain001
// reports them all at once in a *BatchError. They are for the payout job
// and the operator; were they ever shown to a provider through the API,
// the API's error presenter would map them to user errors there.
package bank
