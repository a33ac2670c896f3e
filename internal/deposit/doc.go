// Package deposit lets customers add funds themselves, in USDC on Solana,
// through Solana Pay transfer requests.
//
// # A request
//
// A customer asks for a deposit (Create), of an amount or an open one. The
// request gets a reference key of its own, a fresh public key (package
// solana's NewReference), and is shown as a Solana Pay transfer request:
//
//	solana:<platform wallet>?amount=25.5&spl-token=<USDC mint>&reference=<key>&label=GPUnex&message=…
//
// The amount is in USDC (a decimal string), the recipient is the platform's
// wallet, so the USDC lands in that wallet's associated token account for
// the mint. A wallet that pays the request appends the reference to the
// transfer's accounts, read-only and unsigned: the transaction is then
// listed under the reference by any node (getSignaturesForAddress), and a
// reference belongs to one request alone.
//
// # Following it
//
// The follow-up (Run, every Config.FollowEvery on the replica holding the
// "deposit-follow" lease, as payouts run) does two things, each of which
// any replica may redo:
//
//   - See: for every request still followed (until Config.Expiry plus
//     Config.LateFor after it was made), ask the node for the transactions
//     naming its reference, at confirmed commitment, and store each new one
//     as a SEEN transfer, unique by signature. Requests past their expiry
//     with nothing seen become EXPIRED.
//   - Settle: for every SEEN transfer, read its transaction at finalized
//     commitment (until then it waits; one on a fork the cluster dropped,
//     known on no fork once the finalized chain is DroppedAfterSlots past
//     it, can never land and is REFUSED, NEVER_FINALIZED), judge it
//     (rules.go), and in one
//     database transaction mark it CREDITED or REFUSED, only if it is still
//     SEEN, post the DEPOSIT to the ledger (reference solana:<signature>,
//     unique among deposits), add it to the request and tell the customer.
//
// A replica killed between the two steps leaves SEEN rows that the next
// run, on whatever replica, settles; two replicas settling at once update
// one row, and only the one whose update found it SEEN posts. So each
// transaction is credited at most once, whatever the replicas and
// restarts.
//
// # What is credited
//
// What arrived: the rise of the platform's USDC account's balance across
// the transaction (its post- less pre-token balance), whatever the
// instructions say. A transaction that failed on chain, moved another
// token, paid another account (one that names the reference but pays
// someone else is a forgery, and credits nothing) or brought nothing is
// REFUSED with its issue. One that brought another amount than asked is
// credited for what arrived and says so (UNDERPAID, OVERPAID), and one
// whose block came after the request expired is credited and said to be
// late.
//
// # Live
//
// Every change of a request is published on user.<id>.deposits with the
// request's id; each replica loads the request once per event for every
// subscription of the customer (Follow), and the customer is notified in
// the app when a transfer is credited or refused.
package deposit
