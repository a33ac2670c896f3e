package mail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// FileSender is the embedded default: instead of sending, it writes each
// message as an RFC 5322 .eml file, named <UTC timestamp>-<id>.eml so the
// files sort by time, into one directory a person can open in any mail
// client.
type FileSender struct {
	dir  string
	from *netmail.Address
}

// NewFileSender creates dir (private to this user) and returns a sender
// writing into it as from.
func NewFileSender(dir, from string) (*FileSender, error) {
	if from == "" {
		return nil, errors.New("mail: no sender address for the file sink")
	}
	addr, err := parseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("mail: sender address: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("mail: unable to create the outbox directory: %w", err)
	}
	return &FileSender{dir: dir, from: addr}, nil
}

// Send writes msg to a new file. The file appears complete or not at all:
// it is written under a temporary name and renamed.
func (s *FileSender) Send(ctx context.Context, msg Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m, err := build(s.from, msg)
	if err != nil {
		return err
	}
	id := strconv.FormatInt(msg.ID, 10)
	if msg.ID == 0 {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		id = hex.EncodeToString(b)
	}
	name := time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + id + ".eml"
	tmp, err := os.CreateTemp(s.dir, ".writing-*.tmp")
	if err != nil {
		return fmt.Errorf("mail: unable to write %s: %w", name, err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // no-op after the rename
	if _, err := m.WriteTo(tmp); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("mail: unable to write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mail: unable to write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, name)); err != nil {
		return fmt.Errorf("mail: unable to write %s: %w", name, err)
	}
	return nil
}
