package platform_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/benchtest"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// The live dashboards benchmark (issue 10): 2,000 dashboards, each a
// WebSocket with two subscriptions (machineStatusChanged and
// notificationAdded), against a raw gorilla/websocket hub in the same run
// (one reader and one writer goroutine per connection, the same upgrader
// buffers, a message of the same size). The clients run in a child
// process (this test binary, re-executed), so what is measured here is
// the server alone: memory (live heap and stacks after a GC) and
// goroutines per idle dashboard, the time from one event to its arrival
// at the last dashboard, the server's CPU for that event, the SQL
// statements and Redis commands the event costs, and how long after every
// client drops without a close frame the goroutines and memory are back
// to the baseline. The same again with two replicas sharing Redis, 1,000
// dashboards on each, one event published once. At the smallest size: 10
// dashboards and 2 events, and the recovery is only logged.

const (
	liveClientEnv   = "GPUNEX_LIVE_BENCH_CLIENT"
	liveEvents      = 5
	liveEventsShort = 2
)

// liveDashboards is 2,000 (10 at the smallest size), or GPUNEX_LIVE_DASHBOARDS
// for a quick look.
func liveDashboards() int {
	if n, err := strconv.Atoi(os.Getenv("GPUNEX_LIVE_DASHBOARDS")); err == nil && n > 0 {
		return n
	}
	return benchtest.Sized(2000, 10)
}

func TestMain(m *testing.M) {
	if os.Getenv(liveClientEnv) != "" {
		os.Exit(runLiveClients())
	}
	os.Exit(m.Run())
}

// liveServer is what the benchmark measures: the platform or the raw hub.
type liveServer interface {
	urls() []string
	token() string
	// fire sends one event to every dashboard.
	fire(tb testing.TB)
}

func BenchmarkLiveDashboards(b *testing.B) {
	for _, stack := range platformtest.Stacks {
		b.Run(stack.Name, func(b *testing.B) {
			for range b.N {
				opts := liveOptions()
				s := platformtest.Start(b, stack, opts)
				p := newLivePlatform(b, []*platformtest.Server{s})
				hub := startRawHub(b, p.messageSize)
				hubRes := measureLive(b, hub, nil, nil)
				res := measureLive(b, p, p.sql, p.redisCounter())
				reportLive(b, res, hubRes)
			}
		})
	}
	b.Run("two-replicas-postgres+redis", func(b *testing.B) {
		for range b.N {
			stack := platformtest.Stacks[1]
			opts := liveOptions()
			a := platformtest.Start(b, stack, opts)
			opts.DatabaseURL, opts.RedisURL, opts.RedisPrefix = a.DatabaseURL, a.RedisURL, a.RedisPrefix
			r := platformtest.Start(b, stack, opts)
			p := newLivePlatform(b, []*platformtest.Server{a, r})
			hub := startRawHub(b, p.messageSize)
			hubRes := measureLive(b, hub, nil, nil)
			res := measureLive(b, p, p.sql, p.redisCounter())
			reportLive(b, res, hubRes)
			b.ReportMetric(res.publishes, "redis_publishes/event")
		}
	})
}

func liveOptions() platformtest.Options {
	return platformtest.Options{API: api.Config{WSMaxPerUser: -1, WSMaxPerAddress: -1}}
}

type liveResult struct {
	bytesPerDash      float64
	residentPerDash   float64
	stackPerDash      float64
	goroutinesPerDash float64
	toLast, cpu       time.Duration
	sql, redis        float64
	publishes         float64
	recovered         time.Duration
}

func reportLive(b *testing.B, res, hub liveResult) {
	b.ReportMetric(res.bytesPerDash/1024, "KiB/dashboard")
	b.ReportMetric(hub.bytesPerDash/1024, "hub_KiB/dashboard")
	b.ReportMetric(res.bytesPerDash/hub.bytesPerDash, "memory_x_hub")
	b.ReportMetric(res.residentPerDash/1024, "rss_KiB/dashboard")
	b.ReportMetric(hub.residentPerDash/1024, "hub_rss_KiB/dashboard")
	b.ReportMetric(res.residentPerDash/hub.residentPerDash, "rss_x_hub")
	b.ReportMetric(res.goroutinesPerDash, "goroutines/dashboard")
	b.ReportMetric(res.stackPerDash/1024, "stack_KiB/dashboard")
	b.ReportMetric(hub.stackPerDash/1024, "hub_stack_KiB/dashboard")
	b.ReportMetric(float64(res.toLast)/1e6, "ms_to_last")
	b.ReportMetric(float64(hub.toLast)/1e6, "hub_ms_to_last")
	b.ReportMetric(float64(res.toLast)/float64(hub.toLast), "to_last_x_hub")
	b.ReportMetric(float64(res.cpu)/1e6, "cpu_ms/event")
	b.ReportMetric(float64(hub.cpu)/1e6, "hub_cpu_ms/event")
	b.ReportMetric(float64(res.cpu)/float64(max(hub.cpu, time.Millisecond)), "cpu_x_hub")
	b.ReportMetric(res.sql, "sql/event/replica")
	b.ReportMetric(res.redis, "redis_commands/event")
	b.ReportMetric(res.recovered.Seconds(), "recovered_s")
}

// serverMemory is the live heap and the goroutine stacks, after a GC.
func serverMemory() (bytes uint64, goroutines int) {
	b, _, g := serverMemoryStacks()
	return b, g
}

func serverMemoryStacks() (bytes, stacks uint64, goroutines int) {
	// Each GC may halve a stack that uses under a quarter of it.
	for range 6 {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc + ms.StackInuse, ms.StackInuse, runtime.NumGoroutine()
}

// residentBytes is the process's resident memory (VmRSS, what an operator
// pays for) once the runtime has collected and returned to the system what
// it can: what is live and what the heap keeps mapped for it.
func residentBytes(tb testing.TB) uint64 {
	tb.Helper()
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/statm")
	require.NoError(tb, err)
	fields := strings.Fields(string(data))
	require.GreaterOrEqual(tb, len(fields), 2, "statm: %q", data)
	pages, err := strconv.ParseUint(fields[1], 10, 64)
	require.NoError(tb, err)
	return pages * uint64(os.Getpagesize())
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureLive opens the dashboards from a child process, fires the
// events, then kills the child and waits for the baseline.
func measureLive(b *testing.B, s liveServer, sql func(func()) int, redisCalls func(func()) (int, int)) liveResult {
	b.Helper()
	// A first, smaller crowd brings the pools (database connections, the
	// write buffers) to their working size: the baseline is a warm server.
	dashboards := liveDashboards()
	warm := startLiveClients(b, s.urls(), s.token(), min(200, dashboards))
	s.fire(b)
	warm.waitFor(b, 1)
	warm.kill()
	time.Sleep(time.Second)
	mem0, stack0, g0 := serverMemoryStacks()
	rss0 := residentBytes(b)
	child := startLiveClients(b, s.urls(), s.token(), dashboards)
	time.Sleep(time.Second) // past the set-up's garbage
	mem1, stack1, g1 := serverMemoryStacks()
	rss1 := residentBytes(b)
	if dir := os.Getenv("GPUNEX_LIVE_PROFILE"); dir != "" {
		// go tool pprof -sample_index=inuse_space on the file
		f, err := os.CreateTemp(dir, "live-heap-*.pprof")
		require.NoError(b, err)
		require.NoError(b, pprof.WriteHeapProfile(f))
		_ = f.Close()
		g, err := os.CreateTemp(dir, "live-goroutines-*.txt")
		require.NoError(b, err)
		require.NoError(b, pprof.Lookup("goroutine").WriteTo(g, 1))
		_ = g.Close()
	}
	res := liveResult{
		bytesPerDash:      float64(int64(mem1)-int64(mem0)) / float64(dashboards),
		residentPerDash:   float64(int64(rss1)-int64(rss0)) / float64(dashboards),
		goroutinesPerDash: float64(g1-g0) / float64(dashboards),
		stackPerDash:      float64(int64(stack1)-int64(stack0)) / float64(dashboards),
	}
	var toLast, cpu []time.Duration
	var sqls, cmds, pubs []float64
	for k := 1; k <= benchtest.Sized(liveEvents, liveEventsShort); k++ {
		var last time.Time
		var t0 time.Time
		var c0, c1 time.Duration
		fire := func() {
			t0, c0 = time.Now(), cpuTime()
			s.fire(b)
			last = child.waitFor(b, k)
			c1 = cpuTime()
		}
		n, r, p := 0, 0, 0
		switch {
		case redisCalls != nil:
			r, p = redisCalls(func() { n = sql(fire) })
		case sql != nil:
			n = sql(fire)
		default:
			fire()
		}
		toLast = append(toLast, last.Sub(t0))
		cpu = append(cpu, c1-c0)
		sqls, cmds, pubs = append(sqls, float64(n)), append(cmds, float64(r)), append(pubs, float64(p))
		time.Sleep(200 * time.Millisecond)
	}
	res.toLast, res.cpu = median(toLast), median(cpu)
	res.sql, res.redis, res.publishes = median(sqls), median(cmds), median(pubs)

	child.kill()
	start := time.Now()
	for {
		mem, g := serverMemory()
		// What the dashboards held is given back: every goroutine, and
		// all their memory but 5% of it or 4 MiB, which is what the rest
		// of the process may take meanwhile (the platform runs beside the
		// hub; the SQLite page cache grows to its 2 MiB, say).
		if g <= g0+5 && mem <= mem0+max(4<<20, (mem1-mem0)/20) {
			res.recovered = time.Since(start)
			break
		}
		if time.Since(start) > 30*time.Second {
			benchtest.Sized(b.Errorf, b.Logf)("30 s after every client dropped: %d goroutines (baseline %d), %d MiB (baseline %d MiB)", g, g0, mem>>20, mem0>>20)
			res.recovered = time.Since(start)
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	return res
}

func median[T int64 | float64 | time.Duration](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// livePlatform is one or more replicas with a provider whose dashboards
// watch one machine.
type livePlatform struct {
	servers     []*platformtest.Server
	userToken   string
	channel     string
	payloads    [2][]byte
	fired       int
	messageSize int
	queries     []*platformtest.Statements
	rdb         *redis.Client
}

func newLivePlatform(b *testing.B, servers []*platformtest.Server) *livePlatform {
	b.Helper()
	s := servers[0]
	prov := s.NewProvider(b, "live-bench")
	agent := s.NewAPIClient(b, prov.AgentToken)
	agent.MustDo(nil, registerMachine, map[string]any{"i": inventory("live-bench-machine", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3")})
	var machineID int64
	require.NoError(b, s.Platform.DB.NewSelect().Table("machines").Column("id").Where("provider_id = ?", prov.ID).Scan(context.Background(), &machineID))
	s.DrainMail(b)
	p := &livePlatform{servers: servers, userToken: prov.User.Token, channel: fleet.Channel(prov.ID)}
	for i, status := range []string{"OFFLINE", "ONLINE"} {
		p.payloads[i], _ = json.Marshal(map[string]any{"machineId": machineID, "status": status})
	}
	for _, srv := range servers {
		p.queries = append(p.queries, srv.RecordStatements())
	}
	if s.RedisURL != "" {
		opt, err := redis.ParseURL(s.RedisURL)
		require.NoError(b, err)
		p.rdb = redis.NewClient(opt)
		b.Cleanup(func() { _ = p.rdb.Close() })
	}
	// The size of one event as a dashboard receives it, for the hub.
	ws, _, err := s.DialWS(b, nil)
	require.NoError(b, err)
	ws.Init(map[string]any{"authorization": "Bearer " + p.userToken})
	ws.Subscribe("m", statusSubscription, nil)
	ws.MustRead(10 * time.Second)
	p.fire(b)
	_ = ws.Conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, data, err := ws.Conn.ReadMessage()
		require.NoError(b, err)
		if strings.Contains(string(data), `"next"`) {
			p.messageSize = len(data)
			break
		}
	}
	_ = ws.Conn.Close()
	return p
}

func (p *livePlatform) urls() []string {
	var out []string
	for _, s := range p.servers {
		out = append(out, s.WSURL())
	}
	return out
}

func (p *livePlatform) token() string { return p.userToken }

// fire announces a transition of the machine as the replica that saw it
// would: one publish, which every replica resolves once.
func (p *livePlatform) fire(tb testing.TB) {
	p.fired++
	require.NoError(tb, p.servers[0].Bus.Publish(context.Background(), p.channel, p.payloads[p.fired%2]))
}

// sql counts the statements of a replica while fn runs: every replica's,
// averaged (each resolves the event once).
func (p *livePlatform) sql(fn func()) int {
	counts := make([]int, len(p.queries))
	var inner func(i int)
	inner = func(i int) {
		if i == len(p.queries) {
			fn()
			return
		}
		counts[i] = len(p.queries[i].Record(func() { inner(i + 1) }))
	}
	inner(0)
	total := 0
	for _, n := range counts {
		total += n
	}
	return (total + len(counts) - 1) / len(counts)
}

// redis counts the commands Redis ran while fn runs (INFO's own calls
// taken out), and how many of them were PUBLISH; nil without Redis.
func (p *livePlatform) redisCounter() func(func()) (int, int) {
	if p.rdb == nil {
		return nil
	}
	return p.redisCalls
}

func (p *livePlatform) redisCalls(fn func()) (int, int) {
	total0, pub0 := p.commandStats()
	fn()
	total1, pub1 := p.commandStats()
	return total1 - total0 - 1, pub1 - pub0
}

func (p *livePlatform) commandStats() (total, publishes int) {
	info, err := p.rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
		total += n
		if name == "cmdstat_publish" {
			publishes = n
		}
	}
	return total, publishes
}

// rawHub is the baseline: gorilla/websocket with one reader and one
// writer goroutine per connection and a broadcast to every writer.
type rawHub struct {
	url     string
	message []byte
	mu      sync.Mutex
	conns   map[*hubConn]struct{}
}

type hubConn struct {
	conn *websocket.Conn
	send chan []byte
}

func startRawHub(tb testing.TB, size int) *rawHub {
	tb.Helper()
	h := &rawHub{conns: map[*hubConn]struct{}{}, message: []byte(`{"type":"next","id":"m","payload":"` + strings.Repeat("x", max(size-36, 1)) + `"}`)}
	up := websocket.Upgrader{WriteBufferSize: 4096, WriteBufferPool: &sync.Pool{}} // as the platform's
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		c := &hubConn{conn: conn, send: make(chan []byte, 32)}
		h.mu.Lock()
		h.conns[c] = struct{}{}
		h.mu.Unlock()
		go func() {
			for m := range c.send {
				_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
				if conn.WriteMessage(websocket.TextMessage, m) != nil {
					_ = conn.Close()
					return
				}
			}
		}()
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				break
			}
		}
		h.mu.Lock()
		delete(h.conns, c)
		h.mu.Unlock()
		close(c.send)
		_ = conn.Close()
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() { _ = srv.Close() })
	h.url = "ws://" + ln.Addr().String() + "/"
	return h
}

func (h *rawHub) urls() []string { return []string{h.url} }
func (h *rawHub) token() string  { return "" }

func (h *rawHub) fire(testing.TB) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		select {
		case c.send <- h.message:
		default:
		}
	}
}

// liveClients is the child process holding the dashboards.
type liveClients struct {
	cmd   *exec.Cmd
	lines chan string
}

func startLiveClients(tb testing.TB, urls []string, token string, n int) *liveClients {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), liveClientEnv+"=1", "LIVE_URLS="+strings.Join(urls, ","), "LIVE_TOKEN="+token, "LIVE_N="+strconv.Itoa(n))
	out, err := cmd.StdoutPipe()
	require.NoError(tb, err)
	cmd.Stderr = os.Stderr
	require.NoError(tb, cmd.Start())
	c := &liveClients{cmd: cmd, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	tb.Cleanup(c.kill)
	select {
	case line := <-c.lines:
		require.Equal(tb, "ready", line)
	case <-time.After(5 * time.Minute):
		tb.Fatal("the dashboards did not open within 5 minutes")
	}
	return c
}

// waitFor returns when the last dashboard received event k.
func (c *liveClients) waitFor(tb testing.TB, k int) time.Time {
	tb.Helper()
	select {
	case line, ok := <-c.lines:
		require.True(tb, ok, "the clients ended")
		var got int
		var ns int64
		_, err := fmt.Sscanf(line, "done %d %d", &got, &ns)
		require.NoError(tb, err, line)
		require.Equal(tb, k, got)
		return time.Unix(0, ns)
	case <-time.After(time.Minute):
		tb.Fatalf("event %d did not reach every dashboard within a minute", k)
		return time.Time{}
	}
}

// kill drops every client at once, without a close frame.
func (c *liveClients) kill() {
	if c.cmd.Process != nil && c.cmd.ProcessState == nil {
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
	}
}

// runLiveClients is the child: it opens LIVE_N dashboards spread over
// LIVE_URLS (with LIVE_TOKEN, the platform's two subscriptions; without,
// the raw hub), prints "ready", then "done K <unix ns>" when the last
// dashboard received its K-th message after the set-up.
func runLiveClients() int {
	urls := strings.Split(os.Getenv("LIVE_URLS"), ",")
	token := os.Getenv("LIVE_TOKEN")
	n, _ := strconv.Atoi(os.Getenv("LIVE_N"))
	var arrived [64]atomic.Int64
	var out sync.Mutex
	conns := make([]*websocket.Conn, n)
	dial := func(i int) error {
		d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: time.Minute}
		conn, _, err := d.Dial(urls[i%len(urls)], nil)
		if err != nil {
			return err
		}
		conns[i] = conn
		if token == "" {
			return nil
		}
		_ = conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
		if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"authorization": "Bearer " + token}}); err != nil {
			return err
		}
		if _, _, err := conn.ReadMessage(); err != nil {
			return err
		}
		for _, m := range []map[string]any{
			{"type": "subscribe", "id": "m", "payload": map[string]any{"query": statusSubscription}},
			{"type": "subscribe", "id": "n", "payload": map[string]any{"query": notificationAdded}},
		} {
			if err := conn.WriteJSON(m); err != nil {
				return err
			}
		}
		// The machines' current state.
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				return err
			}
			if strings.Contains(string(data), `"next"`) {
				break
			}
		}
		return conn.SetReadDeadline(time.Time{})
	}
	work := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range work {
				errs <- dial(i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			fmt.Fprintln(os.Stderr, "live bench client:", err)
			return 1
		}
	}
	for _, conn := range conns {
		go func() {
			var k int
			for {
				_, data, err := conn.ReadMessage()
				if err != nil {
					return
				}
				if strings.HasPrefix(string(data), `{"type":"ping"`) {
					_ = conn.WriteJSON(map[string]string{"type": "pong"})
					continue
				}
				k++
				if k < len(arrived) && arrived[k].Add(1) == int64(n) {
					now := time.Now().UnixNano()
					out.Lock()
					fmt.Printf("done %d %d\n", k, now)
					out.Unlock()
				}
			}
		}()
	}
	time.Sleep(2 * time.Second) // every subscribe answered
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	for {
		time.Sleep(time.Hour)
	}
}
