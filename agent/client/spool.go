package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Files of the heartbeat buffer in the data directory.
const (
	BufferFile       = "heartbeats.jsonl"
	BufferOffsetFile = "heartbeats.offset"
)

// DefaultBufferLimit bounds the buffer: at the default 10 s interval,
// more than a day of heartbeats.
const DefaultBufferLimit = 10_000

// compactAfter is how many delivered bytes may sit at the front of the
// buffer file before the rest is copied to a new file.
const compactAfter = 1 << 20

// offsetWidth is the fixed size of the offset record, so rewriting it in
// place never leaves a longer old value behind.
const offsetWidth = 20

// spool is the on-disk FIFO of undelivered heartbeats: a file of JSON
// lines and the byte offset of the oldest one not yet delivered. Delivered
// and dropped entries are skipped by moving the offset; the file is
// truncated when the buffer empties and compacted when the skipped front
// grows large. Pop moves the offset in memory only; Flush (called once per
// replayed batch) and Close write it, so a crash in between repeats
// delivered entries, which at-least-once delivery allows. Safe for
// concurrent use.
type spool struct {
	mu      sync.Mutex
	dir     string
	data    *os.File
	offset  *os.File
	head    int64 // offset of the oldest entry
	size    int64 // bytes in the data file
	count   int   // entries from head on
	limit   int
	peekLen int64 // bytes of the entry Peek returned, newline included
	dirty   bool  // head has moved since the offset file was last written
}

// openSpool opens (or creates) the buffer in dir. What a previous agent
// left is kept: a half-written last line (a crash during Append) is cut
// off, an offset that does not point at the start of a line is reset to
// the start of the file (repeating entries rather than losing any), and
// entries beyond limit are dropped oldest first.
func openSpool(dir string, limit int) (*spool, error) {
	if limit <= 0 {
		limit = DefaultBufferLimit
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("client: heartbeat buffer: %w", err)
	}
	data, err := os.OpenFile(filepath.Join(dir, BufferFile), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("client: heartbeat buffer: %w", err)
	}
	offset, err := os.OpenFile(filepath.Join(dir, BufferOffsetFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		data.Close()
		return nil, fmt.Errorf("client: heartbeat buffer: %w", err)
	}
	s := &spool{dir: dir, data: data, offset: offset, limit: limit}
	if err := s.load(); err != nil {
		s.Close()
		return nil, fmt.Errorf("client: heartbeat buffer in %s: %w", dir, err)
	}
	return s, nil
}

func (s *spool) load() error {
	st, err := s.data.Stat()
	if err != nil {
		return err
	}
	s.size = st.Size()

	// Cut a trailing partial line.
	end, err := lastNewline(s.data, s.size)
	if err != nil {
		return err
	}
	if end != s.size {
		if err := s.data.Truncate(end); err != nil {
			return err
		}
		s.size = end
	}

	s.head = s.readOffset()
	if s.head < 0 || s.head > s.size {
		s.head = 0
	} else if s.head > 0 {
		b := make([]byte, 1)
		if _, err := s.data.ReadAt(b, s.head-1); err != nil || b[0] != '\n' {
			s.head = 0
		}
	}

	s.count, err = countLines(io.NewSectionReader(s.data, s.head, s.size-s.head))
	if err != nil {
		return err
	}
	for s.count > s.limit {
		if _, err := s.peekLocked(); err != nil {
			return err
		}
		s.head += s.peekLen
		s.count--
	}
	if s.count == 0 {
		return s.resetLocked()
	}
	return s.writeOffset()
}

// readOffset returns the stored offset, or 0 when there is none or it is
// unreadable.
func (s *spool) readOffset() int64 {
	b := make([]byte, offsetWidth+1)
	n, _ := s.offset.ReadAt(b, 0)
	v, err := strconv.ParseInt(strings.TrimSpace(string(b[:n])), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

func (s *spool) writeOffset() error {
	if _, err := s.offset.WriteAt(fmt.Appendf(nil, "%0*d\n", offsetWidth, s.head), 0); err != nil {
		return err
	}
	if err := s.offset.Sync(); err != nil {
		return err
	}
	s.dirty = false
	return nil
}

// Flush makes the offset durable after Pops: once per replayed batch
// rather than once per entry.
func (s *spool) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked()
}

func (s *spool) flushLocked() error {
	if !s.dirty {
		return nil
	}
	if err := s.writeOffset(); err != nil {
		return fmt.Errorf("client: heartbeat buffer: %w", err)
	}
	return nil
}

// Len is the number of buffered entries.
func (s *spool) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// Append adds an entry (one line of JSON, without a newline) at the end and
// makes it durable. When the buffer is full the oldest entry is dropped
// first; dropped says so.
func (s *spool) Append(entry []byte) (dropped bool, err error) {
	if bytes.ContainsAny(entry, "\n\r") {
		return false, errors.New("client: heartbeat buffer: entry spans lines")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count >= s.limit {
		if _, err := s.peekLocked(); err != nil {
			return false, err
		}
		s.head += s.peekLen
		s.count--
		dropped = true
		if err := s.writeOffset(); err != nil {
			return dropped, err
		}
	}
	line := append(append(make([]byte, 0, len(entry)+1), entry...), '\n')
	if _, err := s.data.Write(line); err != nil {
		// Take back a partial line (disk full), so the next entry does not
		// run into it.
		_ = s.data.Truncate(s.size)
		return dropped, fmt.Errorf("client: heartbeat buffer: %w", err)
	}
	s.size += int64(len(line))
	s.count++
	if err := s.data.Sync(); err != nil {
		return dropped, fmt.Errorf("client: heartbeat buffer: %w", err)
	}
	return dropped, s.maybeCompactLocked()
}

// Peek returns the oldest entry without removing it.
func (s *spool) Peek() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peekLocked()
}

func (s *spool) peekLocked() ([]byte, error) {
	if s.count == 0 {
		return nil, io.EOF
	}
	r := bufio.NewReader(io.NewSectionReader(s.data, s.head, s.size-s.head))
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("client: heartbeat buffer: reading the oldest entry: %w", err)
	}
	s.peekLen = int64(len(line))
	return line[:len(line)-1], nil
}

// Pop removes the entry the last Peek returned. The new offset is durable
// only after Flush (or Close), or at once when the buffer empties.
func (s *spool) Pop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count == 0 || s.peekLen == 0 {
		return errors.New("client: heartbeat buffer: Pop without Peek")
	}
	s.head += s.peekLen
	s.peekLen = 0
	s.count--
	if s.count == 0 {
		return s.resetLocked()
	}
	s.dirty = true
	return s.maybeCompactLocked()
}

// resetLocked empties the file. The data goes first: a crash between the
// two leaves an offset past the end, which load treats as 0 of nothing.
func (s *spool) resetLocked() error {
	if err := s.data.Truncate(0); err != nil {
		return err
	}
	s.size, s.head, s.peekLen = 0, 0, 0
	return s.writeOffset()
}

// maybeCompactLocked copies the undelivered entries to a fresh file once
// the delivered front is large and most of the file. The offset is reset
// to 0 before the rename: a crash in between repeats delivered entries
// from the old file instead of misreading the new one.
func (s *spool) maybeCompactLocked() error {
	if s.head < compactAfter || s.head < s.size/2 {
		return nil
	}
	tmp, err := os.CreateTemp(s.dir, ".heartbeats-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, io.NewSectionReader(s.data, s.head, s.size-s.head)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	oldHead := s.head
	s.head = 0
	if err := s.writeOffset(); err != nil {
		s.head = oldHead
		return err
	}
	path := filepath.Join(s.dir, BufferFile)
	if err := os.Rename(tmp.Name(), path); err != nil {
		s.head = oldHead
		_ = s.writeOffset()
		return err
	}
	if d, err := os.Open(s.dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	data, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	s.data.Close()
	s.data = data
	s.size -= oldHead
	s.peekLen = 0
	return nil
}

// Close writes a pending offset and closes the files; what is buffered
// stays on disk.
func (s *spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.flushLocked(), s.data.Close(), s.offset.Close())
}

// lastNewline returns the size of the file up to and including its last
// newline.
func lastNewline(f *os.File, size int64) (int64, error) {
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	for end := size; end > 0; {
		start := max(end-chunk, 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for {
		m, err := r.Read(buf)
		n += bytes.Count(buf[:m], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
