package solana

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"

	solanago "github.com/gagliardetto/solana-go"
)

// Key is the platform's payer key: it pays the fees, funds recipients'
// token accounts and owns the USDC that is paid out. Its String, GoString,
// Format (every verb, %d and %x included), LogValue and MarshalJSON show
// only the public key, so printing or logging a Key, or a Config holding
// one, never reveals the secret.
type Key struct {
	priv solanago.PrivateKey
}

// KeyFromPrivate wraps a 64-byte ed25519 private key (seed then public
// key, the Solana CLI's layout), refusing one whose halves disagree.
func KeyFromPrivate(priv solanago.PrivateKey) (Key, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return Key{}, fmt.Errorf("solana key: %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
	}
	derived := ed25519.NewKeyFromSeed(priv[:ed25519.SeedSize])
	if !bytes.Equal(derived[ed25519.SeedSize:], priv[ed25519.SeedSize:]) {
		return Key{}, errors.New("solana key: the public half does not match the secret half")
	}
	return Key{priv: bytes.Clone(priv)}, nil
}

// NewKey returns a fresh random key, for tests and devnet.
func NewKey() Key {
	priv, err := solanago.NewRandomPrivateKey()
	if err != nil {
		panic(fmt.Sprintf("solana key: crypto/rand failed: %v", err))
	}
	return Key{priv: priv}
}

// PublicKey returns the key's address.
func (k Key) PublicKey() PublicKey {
	if len(k.priv) != ed25519.PrivateKeySize {
		return PublicKey{}
	}
	return PublicKey(k.priv[ed25519.SeedSize:])
}

// IsZero reports whether k holds no key.
func (k Key) IsZero() bool { return len(k.priv) == 0 }

// String returns the public key only.
func (k Key) String() string { return "solana key " + k.PublicKey().String() }

// GoString returns the public key only, for %#v.
func (k Key) GoString() string { return "solana.Key(" + k.PublicKey().String() + ")" }

// Format prints the public key only, whatever the verb: without it %d or
// %x would print the secret bytes through reflection.
func (k Key) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, k.GoString())
		return
	}
	_, _ = io.WriteString(f, k.String())
}

// LogValue makes slog log the public key only.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.PublicKey().String()) }

// MarshalJSON writes the public key only, so encoding a Config is harmless.
func (k Key) MarshalJSON() ([]byte, error) { return json.Marshal(k.PublicKey().String()) }

// private returns the secret for signing; only this package calls it.
func (k Key) private() *solanago.PrivateKey { return &k.priv }

// maxKeyFileBytes bounds what LoadKeyFile reads: 64 numbers of at most
// three digits with separators and whitespace fit easily.
const maxKeyFileBytes = 4096

// LoadKeyFile reads the payer key from path in the Solana CLI's format
// (`solana-keygen new -o path`): a JSON array of 64 numbers, the ed25519
// seed then the public key. On Unix it refuses a file that its group or
// others may read or write (mode & 0o077 != 0), as ssh does with private
// keys: chmod 600 the file. Errors name the path and the problem, never the
// file's contents, and the buffer read is zeroed before returning.
func LoadKeyFile(path string) (Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return Key{}, fmt.Errorf("solana key file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Key{}, fmt.Errorf("solana key file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return Key{}, fmt.Errorf("solana key file %s: not a regular file", path)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return Key{}, fmt.Errorf("solana key file %s: mode %04o lets others read it; run chmod 600 %s", path, info.Mode().Perm(), path)
	}
	content, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	defer clear(content)
	if err != nil {
		return Key{}, fmt.Errorf("solana key file %s: %w", path, err)
	}
	if len(content) > maxKeyFileBytes {
		return Key{}, fmt.Errorf("solana key file %s: larger than %d bytes, not a Solana CLI key file", path, maxKeyFileBytes)
	}
	// Numbers, not bytes: encoding/json would take a JSON string for
	// base64 into []byte. The decoder's message is dropped: it may quote
	// part of the file.
	var numbers []int
	notArray := fmt.Errorf("solana key file %s: not a JSON array of 64 numbers from 0 to 255 (the Solana CLI's format)", path)
	if err := json.Unmarshal(content, &numbers); err != nil {
		return Key{}, notArray
	}
	defer clear(numbers)
	if len(numbers) != ed25519.PrivateKeySize {
		return Key{}, fmt.Errorf("solana key file %s: %d numbers, want %d", path, len(numbers), ed25519.PrivateKeySize)
	}
	priv := make(solanago.PrivateKey, len(numbers))
	defer clear(priv)
	for i, n := range numbers {
		if n < 0 || n > 255 {
			return Key{}, notArray
		}
		priv[i] = byte(n)
	}
	k, err := KeyFromPrivate(priv)
	if err != nil {
		return Key{}, fmt.Errorf("solana key file %s: %w", path, err)
	}
	return k, nil
}
