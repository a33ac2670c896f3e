package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gpunex/gpunex/agent/protocol"
)

// Defaults of Storage.
const (
	// DefaultStorageBytes is the test file's size on real hardware: well
	// past any disk's write cache.
	DefaultStorageBytes = 256 << 20
	// DefaultSimulatedStorageBytes is the size for --simulate runs, which
	// still measure the real disk but should not wear a laptop's SSD.
	DefaultSimulatedStorageBytes = 8 << 20
	// DefaultStorageMargin is the free space left over the file's size:
	// the benchmark must never fill the disk the agent's buffer lives on.
	DefaultStorageMargin = 256 << 20
	// DefaultRandomReadFor is how long random reads are issued.
	DefaultRandomReadFor = time.Second
	// DefaultSimulatedRandomReadFor is how long --simulate runs issue them.
	// A simulated machine's figure is still a real measurement of this
	// disk, but a second of eight readers is two cores busy for a second
	// per machine (the small test file sits in the page cache), and a demo
	// world or a soak registers dozens of simulated machines at once.
	DefaultSimulatedRandomReadFor = 100 * time.Millisecond
	// DefaultRandomReadWorkers is how many reads are in flight at once: an
	// SSD's IOPS figure is a queue-depth figure, and one read at a time
	// measures latency instead.
	DefaultRandomReadWorkers = 8
)

// ioBlock is the sequential transfer size; randomBlock the random read's.
const (
	ioBlock     = 1 << 20
	randomBlock = 4 << 10
	alignment   = 4 << 10 // direct I/O wants buffers and offsets aligned to the logical block
)

// benchDir is the folder, under the data directory, the test file lives in.
const benchDir = "bench"

// ErrorInsufficientSpace prefixes the storage section's Error when the disk
// has too little room for the test file.
const ErrorInsufficientSpace = "INSUFFICIENT_SPACE"

// Storage measures the disk the agent's data directory is on, with a test
// file in <Dir>/bench that is always removed (CleanLeftovers removes one a
// crash left behind).
type Storage struct {
	// Dir is the agent's data directory.
	Dir string
	// Bytes is the test file's size; DefaultStorageBytes when zero.
	Bytes int64
	// Margin is the free space that must remain beside the file;
	// DefaultStorageMargin when zero.
	Margin int64
	// FreeSpace reports the bytes available to the agent on dir's
	// filesystem; statfs when nil.
	FreeSpace func(dir string) (uint64, error)
	// RandomReadFor and RandomReadWorkers shape the random reads; the
	// defaults when zero.
	RandomReadFor     time.Duration
	RandomReadWorkers int
	// Logger receives the section's log; nothing is logged when nil.
	Logger *slog.Logger
}

// Measure runs the section: sequential write (fsync'd), sequential read,
// random 4 KiB reads.
func (s *Storage) Measure(ctx context.Context) *protocol.BenchSection {
	sec := &protocol.BenchSection{Outcome: protocol.BenchCompleted, Measurements: []protocol.BenchMeasurement{}}
	ms, err := s.measure(ctx)
	sec.Measurements = append(sec.Measurements, ms...)
	if err != nil {
		sec.Outcome = protocol.BenchFailed
		sec.Error = ptr(shorten(err.Error()))
		s.logger().Warn("bench: storage section failed", "err", err)
		return sec
	}
	s.logger().Info("bench: storage measured", "bytes", s.size(), "measurements", summary(sec.Measurements))
	return sec
}

func (s *Storage) size() int64 {
	if s.Bytes <= 0 {
		return DefaultStorageBytes
	}
	return max(s.Bytes, ioBlock)
}

func (s *Storage) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

func (s *Storage) measure(ctx context.Context) ([]protocol.BenchMeasurement, error) {
	size := s.size() / ioBlock * ioBlock
	dir := filepath.Join(s.Dir, benchDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	margin := s.Margin
	if margin <= 0 {
		margin = DefaultStorageMargin
	}
	freeSpace := s.FreeSpace
	if freeSpace == nil {
		freeSpace = statfsFree
	}
	free, err := freeSpace(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: free space of %s: %w", dir, err)
	}
	if need := uint64(size + margin); free < need {
		return nil, fmt.Errorf("%s: need %s, free %s (a %s test file and %s to spare) in %s",
			ErrorInsufficientSpace, byteSize(need), byteSize(free), byteSize(uint64(size)), byteSize(uint64(margin)), dir)
	}

	path := filepath.Join(dir, fmt.Sprintf("storage-%d.tmp", os.Getpid()))
	defer func() {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.logger().Warn("bench: removing the storage test file", "path", path, "err", err)
		}
	}()
	var out []protocol.BenchMeasurement

	took, err := writeFile(ctx, path, size)
	if err != nil {
		return out, fmt.Errorf("storage: sequential write: %w", err)
	}
	out = append(out, spread(protocol.MetricStorageWrite, []float64{mbs(size, took)}, 1))

	f, direct, err := openForRead(path)
	if err != nil {
		return out, fmt.Errorf("storage: %w", err)
	}
	defer f.Close()
	if !direct {
		// tmpfs and some overlay filesystems refuse O_DIRECT: the reads
		// then come from the page cache, and the log says so.
		s.logger().Warn("bench: the filesystem refuses direct I/O; storage reads are buffered and may come from the page cache", "dir", dir)
	} else {
		s.logger().Debug("bench: storage reads use direct I/O", "dir", dir)
	}

	took, err = readSequential(ctx, f, size)
	if err != nil {
		return out, fmt.Errorf("storage: sequential read: %w", err)
	}
	out = append(out, spread(protocol.MetricStorageRead, []float64{mbs(size, took)}, 1))

	iops, err := s.readRandom(ctx, f, size)
	if err != nil {
		return out, fmt.Errorf("storage: random read: %w", err)
	}
	out = append(out, spread(protocol.MetricStorageRandomRead, []float64{iops}, 0))
	return out, nil
}

// writeFile writes size pseudo-random bytes (incompressible, so a
// compressing filesystem or SSD cannot cheat) and fsyncs: the time is the
// time to stable storage.
func writeFile(ctx context.Context, path string, size int64) (time.Duration, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := alignedBuffer(ioBlock)
	src := rand.NewChaCha8(seed32(time.Now().UnixNano()))
	start := time.Now()
	for written := int64(0); written < size; written += ioBlock {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		_, _ = src.Read(buf)
		if _, err := f.Write(buf); err != nil {
			return 0, err
		}
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("fsync: %w", err)
	}
	return time.Since(start), f.Close()
}

// openForRead opens path for direct I/O where the filesystem allows it,
// buffered otherwise; direct says which.
func openForRead(path string) (f *os.File, direct bool, err error) {
	if oDirect != 0 {
		f, err = os.OpenFile(path, os.O_RDONLY|oDirect, 0)
		if err == nil {
			return f, true, nil
		}
	}
	f, err = os.Open(path)
	return f, false, err
}

func readSequential(ctx context.Context, f *os.File, size int64) (time.Duration, error) {
	buf := alignedBuffer(ioBlock)
	start := time.Now()
	for off := int64(0); off < size; off += ioBlock {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// readRandom issues 4 KiB reads at random aligned offsets from
// RandomReadWorkers goroutines for RandomReadFor and returns reads per
// second.
func (s *Storage) readRandom(ctx context.Context, f *os.File, size int64) (float64, error) {
	workers := s.RandomReadWorkers
	if workers <= 0 {
		workers = DefaultRandomReadWorkers
	}
	span := s.RandomReadFor
	if span <= 0 {
		span = DefaultRandomReadFor
	}
	blocks := size / randomBlock
	var reads atomic.Int64
	var firstErr error
	var once sync.Once
	ctx, cancel := context.WithTimeout(ctx, span)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			buf := alignedBuffer(randomBlock)
			r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(w)))
			for ctx.Err() == nil {
				if _, err := f.ReadAt(buf, r.Int64N(blocks)*randomBlock); err != nil && !errors.Is(err, io.EOF) {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
				reads.Add(1)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if firstErr != nil {
		return 0, firstErr
	}
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return 0, err
	}
	return float64(reads.Load()) / took.Seconds(), nil
}

// alignedBuffer returns n bytes starting at an address direct I/O accepts.
func alignedBuffer(n int) []byte {
	raw := make([]byte, n+alignment)
	off := 0
	if rem := int(uintptr(unsafe.Pointer(&raw[0])) % alignment); rem != 0 {
		off = alignment - rem
	}
	return raw[off : off+n : off+n]
}

// mbs is 10^6 bytes per second.
func mbs(bytes int64, took time.Duration) float64 {
	if took <= 0 {
		took = time.Microsecond
	}
	return float64(bytes) / took.Seconds() / 1e6
}

// CleanLeftovers removes test files a benchmark interrupted by a crash or a
// kill left in <dataDir>/bench. main calls it at start, before any
// benchmark can run; it removes only the suite's own storage-*.tmp files.
func CleanLeftovers(dataDir string) error {
	dir := filepath.Join(dataDir, benchDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bench: leftovers in %s: %w", dir, err)
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(name, "storage-") && strings.HasSuffix(name, ".tmp") {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bench: removing leftovers: %w", err)
	}
	return nil
}

// byteSize renders a byte count for people: "256 MiB".
func byteSize(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
