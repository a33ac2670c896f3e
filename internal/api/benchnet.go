package api

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/ratelimit"
)

// BenchNetworkConfig bounds what one machine may ask of the network
// benchmark's endpoints on one replica. Zero values take the defaults:
// 10 requests a second (burst 60: a run's latency probes at once), and
// 2 MiB a second of transfer with a burst of 160 MiB, room for several
// runs' default 16 MiB down and 16 MiB up back to back, not for a machine
// that would use the platform as a speed test all day.
type BenchNetworkConfig struct {
	RequestsPerSecond float64
	RequestBurst      int
	BytesPerSecond    float64
	ByteBurst         int
}

func (c *BenchNetworkConfig) defaults() {
	if c.RequestsPerSecond <= 0 {
		c.RequestsPerSecond = 10
	}
	if c.RequestBurst <= 0 {
		c.RequestBurst = 60
	}
	if c.BytesPerSecond <= 0 {
		c.BytesPerSecond = 2 << 20
	}
	if c.ByteBurst <= 0 {
		c.ByteBurst = 160 << 20
	}
}

// MachineResolver names the machine an agent's request is about: its row
// id, or an error (NOT_FOUND for a machine that is not the token's
// provider's).
type MachineResolver func(ctx context.Context, agent *auth.Agent, machineUID string) (int64, error)

// benchNetwork serves the network benchmark: ping, download and upload,
// each for an agent token and a machine of its provider, rate-limited per
// machine, streaming both ways.
type benchNetwork struct {
	auth     *auth.Service
	resolve  MachineResolver
	logger   *slog.Logger
	requests *ratelimit.Buckets
	bytes    *ratelimit.Buckets
}

// BenchNetworkRoutes returns the network benchmark's handlers, keyed by
// their ServeMux patterns (for Deps.Routes).
func BenchNetworkRoutes(a *auth.Service, resolve MachineResolver, clk clock.Clock, cfg BenchNetworkConfig, logger *slog.Logger) map[string]http.Handler {
	cfg.defaults()
	b := &benchNetwork{auth: a, resolve: resolve, logger: logger,
		requests: ratelimit.New(clk, cfg.RequestsPerSecond, cfg.RequestBurst),
		bytes:    ratelimit.New(clk, cfg.BytesPerSecond, cfg.ByteBurst)}
	return map[string]http.Handler{
		"GET " + protocol.BenchPingPath:     b.admit(b.ping),
		"GET " + protocol.BenchDownloadPath: b.admit(b.download),
		"POST " + protocol.BenchUploadPath:  b.admit(b.upload),
	}
}

// admit authenticates the agent token, resolves the machine named in
// protocol.BenchMachineHeader and spends one of its request tokens.
func (b *benchNetwork) admit(next func(w http.ResponseWriter, r *http.Request, machineID int64)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		tok, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok || !auth.IsAgentToken(tok) {
			writeHTTPError(w, http.StatusUnauthorized, fault.Unauthenticated, "this endpoint needs an agent token: \"Authorization: Bearer "+auth.AgentTokenPrefix+"…\"")
			return
		}
		agent, err := b.auth.AuthenticateAgent(r.Context(), tok)
		if err != nil {
			b.fail(w, r, err)
			return
		}
		uid := r.Header.Get(protocol.BenchMachineHeader)
		if !protocol.ValidMachineID(uid) {
			writeHTTPError(w, http.StatusBadRequest, fault.Invalid, "the "+protocol.BenchMachineHeader+" header must name the machine (its machine id)")
			return
		}
		machineID, err := b.resolve(r.Context(), agent, uid)
		if err != nil {
			b.fail(w, r, err)
			return
		}
		if ok, wait := b.requests.Reserve(machineID, 1); !ok {
			tooMany(w, wait, "too many benchmark requests for this machine; slow down")
			return
		}
		next(w, r, machineID)
	})
}

// fail answers an error by its code.
func (b *benchNetwork) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch code := fault.CodeOf(err); code {
	case fault.Unauthenticated:
		writeHTTPError(w, http.StatusUnauthorized, code, publicMessage(err))
	case fault.Forbidden:
		writeHTTPError(w, http.StatusForbidden, code, publicMessage(err))
	case fault.NotFound:
		writeHTTPError(w, http.StatusNotFound, code, publicMessage(err))
	case fault.RateLimited:
		tooMany(w, time.Second, publicMessage(err))
	default:
		b.logger.ErrorContext(r.Context(), "api: network benchmark failed", "path", r.URL.Path, "err", err)
		writeHTTPError(w, http.StatusInternalServerError, fault.Internal, "internal error")
	}
}

func tooMany(w http.ResponseWriter, wait time.Duration, msg string) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeHTTPError(w, http.StatusTooManyRequests, fault.RateLimited, msg)
}

// spendBytes spends n of the machine's transfer allowance, answering 429
// when it is spent.
func (b *benchNetwork) spendBytes(w http.ResponseWriter, machineID, n int64) bool {
	ok, wait := b.bytes.Reserve(machineID, float64(n))
	if !ok {
		tooMany(w, wait, "this machine's benchmark transfer allowance is spent for now; retry later")
	}
	return ok
}

func (b *benchNetwork) ping(w http.ResponseWriter, _ *http.Request, _ int64) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"ok":true}`)
}

// download streams ?bytes=N bytes of incompressible data from one shared
// block, so no request holds more than the block in memory.
func (b *benchNetwork) download(w http.ResponseWriter, r *http.Request, machineID int64) {
	n, err := strconv.ParseInt(r.URL.Query().Get("bytes"), 10, 64)
	if err != nil || n < 1 || n > protocol.BenchMaxTransferBytes {
		writeHTTPError(w, http.StatusBadRequest, fault.Invalid,
			"bytes must be a whole number from 1 to "+strconv.Itoa(protocol.BenchMaxTransferBytes))
		return
	}
	if !b.spendBytes(w, machineID, n) {
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
	block := noiseBlock()
	for n > 0 && r.Context().Err() == nil {
		chunk := block[:min(int64(len(block)), n)]
		if _, err := w.Write(chunk); err != nil {
			return
		}
		n -= int64(len(chunk))
	}
}

// upload reads and discards a body of at most the cap, through a fixed
// buffer, and answers with the byte count read.
func (b *benchNetwork) upload(w http.ResponseWriter, r *http.Request, machineID int64) {
	if r.ContentLength > protocol.BenchMaxTransferBytes {
		writeHTTPError(w, http.StatusRequestEntityTooLarge, fault.Invalid,
			"the body is over the cap of "+strconv.Itoa(protocol.BenchMaxTransferBytes)+" bytes")
		return
	}
	// A body of unknown length is charged the cap up front and refunded
	// nothing: chunked uploads are the agent's choice, not the common case.
	charge := r.ContentLength
	if charge < 0 {
		charge = protocol.BenchMaxTransferBytes
	}
	if !b.spendBytes(w, machineID, charge) {
		return
	}
	body := http.MaxBytesReader(w, r.Body, protocol.BenchMaxTransferBytes)
	buf := uploadBuffers.Get().(*[]byte)
	n, err := io.CopyBuffer(io.Discard, body, *buf)
	uploadBuffers.Put(buf)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeHTTPError(w, http.StatusRequestEntityTooLarge, fault.Invalid,
				"the body is over the cap of "+strconv.Itoa(protocol.BenchMaxTransferBytes)+" bytes")
			return
		}
		writeHTTPError(w, http.StatusBadRequest, fault.Invalid, "the upload ended early")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]int64{"bytes": n})
}

// uploadBuffers are the fixed buffers uploads are read through.
var uploadBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// noiseBlock is 256 KiB of random bytes, made once: repeating it is
// incompressible to any link-level compression worth the name.
var noiseBlock = sync.OnceValue(func() []byte {
	b := make([]byte, 256<<10)
	_, _ = rand.Read(b)
	return b
})
