package auth_test

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/benchtest"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// peakRSS is the process's high-water mark of resident memory (VmHWM).
func peakRSS(b *testing.B) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// BenchmarkConcurrentSignInMemory is point 2 of issue 9 measured with
// the production argon2id parameters (64 MiB a hash): 200 sign-ins at
// once. The bound (one hash per core) keeps the growth of the process's
// peak memory near NumCPU × 64 MiB, where 200 unbounded hashes would take
// 12.5 GiB; the rest wait their turn or are answered RATE_LIMITED.
// Reports peak_growth_MiB and bound_MiB (NumCPU × 64). Run with
// `make bench`. At the smallest size (benchtest, make test) the sign-ins are
// two per core and two more, so some still wait for a slot.
func BenchmarkConcurrentSignInMemory(b *testing.B) {
	signIns := 200
	if benchtest.Smallest() {
		signIns = 2*runtime.NumCPU() + 2
	}
	db := storetest.Open(b, "sqlite")
	svc := auth.New(auth.Deps{DB: db, Clock: clock.Real{}, Logger: slog.New(slog.DiscardHandler)}, auth.Config{})
	ctx := context.Background()
	if _, err := svc.CreateUser(ctx, auth.SignUpInput{Email: "ada@example.com", Password: password, Name: "Ada"}); err != nil {
		b.Fatal(err)
	}
	// One sign-in first, so its memory is in the baseline.
	if _, _, err := svc.LogIn(ctx, "ada@example.com", password, models.SessionBearer); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	before := peakRSS(b)
	var limited, ok int
	var mu sync.Mutex
	for b.Loop() {
		var wg sync.WaitGroup
		for range signIns {
			wg.Go(func() {
				_, _, err := svc.LogIn(ctx, "ada@example.com", password, models.SessionBearer)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case fault.CodeOf(err) == fault.RateLimited:
					limited++
				default:
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(peakRSS(b)-before, "peak_growth_MiB")
	b.ReportMetric(float64(runtime.NumCPU()*64), "bound_MiB")
	b.ReportMetric(float64(ok)/float64(b.N), "signed_in/op")
	b.ReportMetric(float64(limited)/float64(b.N), "rate_limited/op")
}
