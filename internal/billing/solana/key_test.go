package solana_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing/solana"
)

// keyFile writes content to a file of mode perm in a temporary folder.
func keyFile(t *testing.T, content string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "payer.json")
	require.NoError(t, os.WriteFile(path, []byte(content), perm))
	require.NoError(t, os.Chmod(path, perm)) // past the umask
	return path
}

// cliFormat is priv as `solana-keygen new -o` writes it.
func cliFormat(t *testing.T, priv []byte) string {
	t.Helper()
	numbers := make([]int, len(priv))
	for i, b := range priv {
		numbers[i] = int(b)
	}
	out, err := json.Marshal(numbers)
	require.NoError(t, err)
	return string(out)
}

func TestLoadKeyFile(t *testing.T) {
	t.Parallel()
	priv, err := solanago.NewRandomPrivateKey()
	require.NoError(t, err)
	good := cliFormat(t, priv)
	halves := append(bytes.Clone(priv[:32]), solana.NewKey().PublicKey().Bytes()...)

	cases := []struct {
		desc    string
		content string
		perm    os.FileMode
		want    string // part of the error; empty when it loads
	}{
		{desc: "the CLI's format, mode 600", content: good, perm: 0o600},
		{desc: "read-only, mode 400", content: good, perm: 0o400},
		{desc: "with a trailing line break", content: good + "\n", perm: 0o600},
		{desc: "readable by the group", content: good, perm: 0o640, want: "chmod 600"},
		{desc: "readable by everyone", content: good, perm: 0o644, want: "mode 0644 lets others read it"},
		{desc: "not JSON", content: "not a key", perm: 0o600, want: "not a JSON array of 64 numbers"},
		{desc: "base58 instead of an array", content: `"` + priv.String() + `"`, perm: 0o600, want: "not a JSON array"},
		{desc: "63 numbers", content: cliFormat(t, priv[:63]), perm: 0o600, want: "63 numbers, want 64"},
		{desc: "a number above 255", content: "[256" + good[strings.Index(good, ","):], perm: 0o600, want: "not a JSON array"},
		{desc: "halves of two keys", content: cliFormat(t, halves), perm: 0o600, want: "does not match"},
		{desc: "empty", content: "", perm: 0o600, want: "not a JSON array"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			path := keyFile(t, tc.content, tc.perm)
			k, err := solana.LoadKeyFile(path)
			if tc.want == "" {
				require.NoError(t, err)
				require.Equal(t, priv.PublicKey(), k.PublicKey())
				return
			}
			require.ErrorContains(t, err, tc.want)
			require.Contains(t, err.Error(), path)
			require.NotContains(t, err.Error(), good[1:20], "the error never quotes the key")
			require.True(t, k.IsZero())
		})
	}
}

func TestLoadKeyFileRefusesWhatIsNotAFile(t *testing.T) {
	t.Parallel()
	_, err := solana.LoadKeyFile(filepath.Join(t.TempDir(), "missing.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700))
	_, err = solana.LoadKeyFile(dir)
	require.ErrorContains(t, err, "not a regular file")
}

// Whatever a careless caller does with a Key or a Config, the secret does
// not come out: not printed with any verb, logged, or encoded.
func TestKeyNeverShowsTheSecret(t *testing.T) {
	t.Parallel()
	priv, err := solanago.NewRandomPrivateKey()
	require.NoError(t, err)
	k, err := solana.KeyFromPrivate(priv)
	require.NoError(t, err)
	cfg := solana.Config{RPCURL: "https://api.mainnet-beta.solana.com", Payer: k}

	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("payer", "key", k, "config", cfg)
	encoded, err := json.Marshal(cfg)
	require.NoError(t, err)
	outputs := []string{logged.String(), string(encoded)}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%X", "%q"} {
		outputs = append(outputs, fmt.Sprintf(verb, k), fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg))
	}

	seed := priv[:32]
	secrets := []string{
		priv.String(),                           // base58 of the 64 bytes
		solanago.PrivateKey(seed).String()[:20], // base58 of the seed, a prefix
		fmt.Sprintf("%x", seed[:8]),
		fmt.Sprintf("%X", seed[:8]),
		decimal(seed[:6]),
		strings.Trim(cliFormat(t, seed[:6]), "[]"),
	}
	for _, out := range outputs {
		require.Contains(t, out, k.PublicKey().String(), "the public key is what shows")
		for _, secret := range secrets {
			require.NotContains(t, out, secret)
		}
	}
}

func TestKeyFromPrivateRefusesMismatchedHalves(t *testing.T) {
	t.Parallel()
	priv, err := solanago.NewRandomPrivateKey()
	require.NoError(t, err)
	_, err = solana.KeyFromPrivate(priv[:63])
	require.ErrorContains(t, err, "63 bytes")
	bad := bytes.Clone(priv)
	bad[63] ^= 1
	_, err = solana.KeyFromPrivate(bad)
	require.ErrorContains(t, err, "does not match")
}

// decimal is b as fmt prints a byte slice with %v, without the brackets.
func decimal(b []byte) string {
	out := make([]string, len(b))
	for i, c := range b {
		out[i] = strconv.Itoa(int(c))
	}
	return strings.Join(out, " ")
}
