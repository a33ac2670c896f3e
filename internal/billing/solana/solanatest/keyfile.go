package solanatest

import (
	"encoding/json"
	"os"
	"path/filepath"

	solana "github.com/gagliardetto/solana-go"
)

// WriteKeyFile writes key as the Solana CLI does (a JSON array of its 64
// bytes) to dir/platform.json, readable by its owner only, as gpunex
// serve's --solana-key-file asks, and returns the file's path: how a test
// hands the platform's payer key to a gpunex process paying through a
// Server.
func WriteKeyFile(dir string, key solana.PrivateKey) (string, error) {
	numbers := make([]int, len(key))
	for i, b := range key {
		numbers[i] = int(b)
	}
	content, err := json.Marshal(numbers)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "platform.json")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		return "", err
	}
	return path, nil
}
