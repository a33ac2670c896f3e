package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpunex/gpunex/agent/protocol"
)

// MachineIDFile is the name of the identity file in the data directory.
const MachineIDFile = "machine-id"

// EnsureDataDir creates dir (mode 700) if it does not exist yet. An
// existing directory keeps its mode: it may be a volume the operator set
// up.
func EnsureDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("config: data directory %s: %w; set --data-dir (GPUNEX_DATA_DIR) to a directory the agent may write", dir, err)
	}
	return nil
}

// LoadMachineID returns the machine's identity from dir/machine-id,
// creating dir and the file (a random 128-bit id in hex, mode 600) the
// first time. created says whether the id is new. Two agents starting at
// once on the same directory end up with the same id: the file is
// published with a hard link, which fails if another got there first.
func LoadMachineID(dir string) (id string, created bool, err error) {
	if err := EnsureDataDir(dir); err != nil {
		return "", false, err
	}
	path := filepath.Join(dir, MachineIDFile)
	id, err = readMachineID(path)
	if err == nil {
		return id, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, err
	}

	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", false, fmt.Errorf("config: unable to generate a machine id: %w", err)
	}
	id = hex.EncodeToString(b)
	tmp, err := os.CreateTemp(dir, ".machine-id-*")
	if err != nil {
		return "", false, fmt.Errorf("config: unable to write the machine id in %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name())
	if err := writeAndSync(tmp, id+"\n"); err != nil {
		return "", false, fmt.Errorf("config: unable to write the machine id in %s: %w", dir, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			id, err := readMachineID(path)
			return id, false, err
		}
		return "", false, fmt.Errorf("config: unable to save the machine id as %s: %w", path, err)
	}
	syncDir(dir)
	return id, true, nil
}

func readMachineID(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("config: unable to read the machine id: %w", err)
	}
	id := strings.TrimSpace(string(data))
	if !protocol.ValidMachineID(id) {
		return "", fmt.Errorf("config: %s does not hold a machine id (8-64 of A-Z a-z 0-9 - _): restore it from a backup to keep this machine's history, or delete it to register the host as a new machine", path)
	}
	return id, nil
}

func writeAndSync(f *os.File, s string) error {
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes a new directory entry durable; failures only cost
// durability on a crash, so they are ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
