// Package solana pays providers in USDC on Solana and checks the wallet
// addresses they give for it.
//
// # Addresses
//
// ParseWallet accepts a wallet's address only: base58 of exactly 32 bytes,
// on the ed25519 curve (so someone holds its private key), neither the USDC
// mint nor a program's id. An associated token account is off the curve
// and refused with a message asking for the wallet address instead; paying
// "to" it would create a token account owned by a token account, and the
// money would be lost. A token account created from a keypair is on the
// curve, so CheckNotTokenAccount asks the node who owns the address
// (Client.CheckWallet does both, and Prepare checks again). Refusals are
// *WalletError with a stable code (fault.Wallet*, the UserErrorCode enum)
// and an English message; its Validation method turns one into a
// fault.Validation for the API.
//
// # The payer key
//
// LoadKeyFile reads the platform's key in the Solana CLI's format and
// refuses a file its group or others may read. A Key prints, logs and
// encodes as its public key only.
//
// # Paying
//
// A payout is one transaction with, in order, the associated token account
// program's CreateIdempotent for the recipient's USDC account (the payer
// funds it when it is missing, and it is a no-op when it exists), SPL
// Token's TransferChecked of the amount from the payer's USDC account,
// stating the mint and its six decimals so the chain refuses anything else,
// and optionally a Memo with the payout's reference. The transaction is
// signed once by Prepare and never changes afterwards: its signature is its
// id on chain, so sending the same bytes any number of times pays at most
// once, and Solana refuses it for good once its blockhash has expired
// (Prepared.LastValidBlockHeight).
//
// The caller drives it in three steps, storing between the first two:
//
//	p, err := c.Prepare(ctx, wallet, amount, payoutID) // signs, sends nothing
//	// store p.Signature, p.Raw and p.LastValidBlockHeight with the payout, durably
//	err = c.Send(ctx, p)
//	err = c.WaitConfirmed(ctx, p, time.Minute)
//
// # Recovering after a crash
//
// For every payout that has a stored transaction and is not yet settled,
// the caller asks Recover, which reads the finalized block height first and
// the stored signature's status second, and acts on the answer:
//
//   - Confirmed (ActionPaid): the payout is paid. Record it.
//   - Failed (ActionFailed): it landed and failed; nothing moved but the
//     fee. Record the failure and its on-chain error. Its signature can
//     never land again, so a new transaction is safe once the cause
//     (usually too little USDC or SOL in the platform's wallet) is fixed.
//   - Pending (ActionWait): processed but not yet at the commitment. Wait
//     and ask again.
//   - NotFound and not expired (ActionResend): Send the stored Raw again,
//     never a new transaction. It may be in flight, dropped, or never sent
//     (the crash came before Send); the same bytes cover all three.
//   - NotFound and expired (ActionRebuild): it can never land. Only now is
//     it safe to Prepare a new transaction, which the caller stores in
//     place of the old one before sending it.
//
// Never build a new transaction while the old one may still land: that is
// the one way to pay twice. A send error, a timeout or a NotFound before
// expiry all leave the old transaction possibly alive. WaitConfirmed
// follows the same protocol in a loop (re-sending while NotFound and not
// expired), so after a crash it is enough to call WaitConfirmed on the
// stored Prepared and act on its result: nil is paid, ErrFailed failed,
// ErrExpired rebuild, anything else unknown (keep it and try later).
//
// Expiry is judged on the finalized block height, which cannot roll back.
// Confirmed means at the Client's commitment, confirmed by default
// (finalized on request); a transaction seen only below it is Pending,
// even when it failed there, since its fork may yet be dropped.
//
// The package solanatest is an in-process JSON-RPC node for tests that
// decodes and checks every transaction sent to it and records what it paid.
package solana
