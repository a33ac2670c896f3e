package solana

import (
	"fmt"

	solanago "github.com/gagliardetto/solana-go"
)

// PublicKey is a Solana address (solana-go's type), aliased so callers of
// this package need not import solana-go, whose package is also named
// solana.
type PublicKey = solanago.PublicKey

// USDCMint is the mint of USDC on Solana mainnet (Circle's).
var USDCMint = solanago.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")

// USDCDecimals is the number of decimals of USDC: one micro-USDC, the unit
// of models.USDC, is one base unit of the token.
const USDCDecimals = 6

// The programs a payout touches. They are the same ids on every cluster.
var (
	systemProgramID = solanago.SystemProgramID
	tokenProgramID  = solanago.TokenProgramID
	token2022ID     = solanago.Token2022ProgramID
	ataProgramID    = solanago.SPLAssociatedTokenAccountProgramID
	memoProgramID   = solanago.MemoProgramID
)

// AssociatedTokenAddress returns the associated token account of wallet
// for mint under the SPL Token program: where a payout to wallet lands.
func AssociatedTokenAddress(wallet, mint PublicKey) (PublicKey, error) {
	ata, _, err := solanago.FindAssociatedTokenAddress(wallet, mint)
	return ata, err
}

// ParseMint reads a mint's address (base58 of 32 bytes).
func ParseMint(s string) (PublicKey, error) {
	pk, err := solanago.PublicKeyFromBase58(s)
	if err != nil {
		return PublicKey{}, fmt.Errorf("solana: %q is not an address: %w", s, err)
	}
	return pk, nil
}
