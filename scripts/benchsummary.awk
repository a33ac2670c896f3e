# benchsummary.awk sums up `go test -bench` output (several runs of each
# benchmark with -count) against the targets docs/development.md states ("make bench"): for each
# ratio the median of the runs, then every run; for SQL writes and
# publishes, statements per page or advice and rentals won the largest.
# One line per benchmark with its figures and their targets. A benchmark
# that failed (--- FAIL, or a panic while it ran) gets a line of its own,
# "NAME: FAILED: the first line it logged"; a package that failed with no
# benchmark to blame (it did not build, or a panic outside one) gets
# "PACKAGE: FAILED". It exits 1 when anything failed.
# POSIX awk.

function add(key, v) { val[key, ++count[key]] = v + 0 }

function median(key,    n, i, j, t, a) {
	n = count[key]
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function runs(key,    i, s) {
	s = ""
	for (i = 1; i <= count[key]; i++) s = s (i > 1 ? ", " : "") sprintf("%.3g", val[key, i])
	return s
}

function largest(key,    i, m) {
	m = 0
	for (i = 1; i <= count[key]; i++) if (val[key, i] > m) m = val[key, i]
	return m
}

# fail records that benchmark (or package) b failed, why if known.
function fail(b, why) {
	if (!(b in failed)) { failed[b] = why; failorder[++nfailed] = b }
	else if (failed[b] == "" && why != "") failed[b] = why
	if (pkg != "") pkgfailed[pkg] = 1
}

/^pkg: / { pkg = $2 }

# A failure's log follows its --- FAIL line, indented.
awaiting != "" && /^    / { sub(/^ +/, ""); fail(awaiting, $0); awaiting = ""; next }
{ awaiting = "" }

/--- FAIL: Benchmark/ {
	b = $0
	sub(/.*--- FAIL: /, "", b)
	sub(/[ \t].*/, "", b)
	fail(b, "")
	awaiting = b
	next
}

/^Benchmark[^ \t]*[ \t]+panic: / {
	b = $0
	sub(/.*[ \t]panic: /, "", b)
	fail($1, "panic: " b)
	next
}

# A package that does not build: go's "# package" line, then the first
# error.
/^# / { compiling = 1; next }
compiling { compiling = 0; if (buildError == "") buildError = $0 }

# A panic on a line of its own (the test binary's stderr and stdout
# interleave as they will; go test's -timeout panics too): the package
# failed, in the benchmark the first frame of its stack names.
/^panic: / && panicked == "" { panicked = $0; next }
panicked != "" && panicIn == "" && /\.Benchmark[A-Za-z0-9_]+/ {
	panicIn = $0
	sub(/.*\.Benchmark/, "Benchmark", panicIn)
	sub(/[^A-Za-z0-9_].*/, "", panicIn)
}

/^FAIL[ \t]/ {
	why = ""
	if ($0 ~ /\[build failed\]/) why = "it did not build" (buildError != "" ? ": " buildError : "")
	else if (panicked != "") why = panicked (panicIn != "" ? " (in " panicIn ")" : "")
	else if (!($2 in pkgfailed)) why = "no benchmark to blame; see its output"
	if (why != "") fail($2, why)
	pkgfailed[$2] = 1
	panicked = panicIn = buildError = ""
	next
}

/^Benchmark/ {
	name = $1
	if (!(name in seen)) { seen[name] = 1; order[++n] = name }
	for (i = 3; i <= NF; i++)
		if ($i ~ /(x_bare|x_benign|_MiB|\/hb|_of_a_core|_x_hub|\/dashboard|\/event|\/replica|_ms_to_last|ms_to_last|recovered_s|_x_hand|p50_ms|p95_ms|start_p99_ms|start_p99_lowest_ms|start_p99_highest_ms|cold_p99_ms|\/page|starts_won|starts_unavailable|p95_x_1x|sql\/advice|seed_s|rentals|p50_x_1x|p95_10x_ms|sql\/history|ledger_tx_x_1x|ms_per_tick|tick_x_period|sql\/rental|sql\/tick|deliveries\/s|events\/s|sql\/summary|sql\/transition|events|_1x_ms|sql\/request)$/) add(name SUBSEP $i, $(i - 1))
}

END {
	for (k = 1; k <= n; k++) {
		b = order[k]
		if ((b SUBSEP "throughput_x_bare") in count) {
			t = b SUBSEP "throughput_x_bare"; p = b SUBSEP "p99_x_bare"
			if (b ~ /SmallQueries/) {
				r = median(t); r99 = median(p)
				printf "%s: throughput %.3g x bare (target >= 0.77, i.e. within 1.3x; runs %s), p99 %.3g x bare (target <= 1.3; runs %s), %g SQL statements per request%s\n", \
					b, r, runs(t), r99, runs(p), largest(b SUBSEP "sql/request"), (r < 1 / 1.3 || r99 > 1.3) ? " OVER TARGET" : ""
			} else if (b ~ /generic/) {
				printf "%s: throughput %.3g x bare, p99 %.3g x bare (medians of %d runs; the gqlgen generic executor, for comparison)\n", b, median(t), median(p), count[t]
			} else {
				printf "%s: throughput %.3g x bare (target >= 0.8; runs %s), p99 %.3g x bare (target <= 1.3; runs %s), at most %g SQL writes and %g publishes per heartbeat (target <= 0.02)\n", \
					b, median(t), runs(t), median(p), runs(p), largest(b SUBSEP "sql_writes/hb"), largest(b SUBSEP "publishes/hb")
			}
		} else if ((b SUBSEP "x_bare") in count) {
			printf "%s: %.3g x the time of the bare handler per request (median; runs %s)\n", b, median(b SUBSEP "x_bare"), runs(b SUBSEP "x_bare")
		} else if ((b SUBSEP "x_benign") in count) {
			printf "%s: a normal request under attack takes %.3g x its time under an ordinary flood of the same concurrency (target <= 1.5; median; runs %s)\n", b, median(b SUBSEP "x_benign"), runs(b SUBSEP "x_benign")
		} else if ((b SUBSEP "peak_growth_MiB") in count) {
			printf "%s: 200 sign-ins at once grew the peak memory by %.3g MiB (target <= the bound of one 64 MiB hash per core, %g MiB, +10%%; unbounded: 12800 MiB)\n", b, largest(b SUBSEP "peak_growth_MiB"), largest(b SUBSEP "bound_MiB")
		} else if ((b SUBSEP "memory_x_hub") in count) {
			printf "%s: per idle dashboard %.3g KiB resident = %.3g x the raw hub's %.3g KiB (target <= 2; runs %s), %.3g KiB heap and stacks = %.3g x the hub's (runs %s), %.3g goroutines (target <= 3); one event to all: last dashboard after %.3g ms = %.3g x the hub's (target <= 2; runs %s), server CPU %.3g x the hub's (target <= 3; runs %s); at most %g SQL statements per replica and %g Redis commands per event (target <= 2 each)", \
				b, median(b SUBSEP "rss_KiB/dashboard"), median(b SUBSEP "rss_x_hub"), median(b SUBSEP "hub_rss_KiB/dashboard"), runs(b SUBSEP "rss_x_hub"), \
				median(b SUBSEP "KiB/dashboard"), median(b SUBSEP "memory_x_hub"), runs(b SUBSEP "memory_x_hub"), largest(b SUBSEP "goroutines/dashboard"), \
				median(b SUBSEP "ms_to_last"), median(b SUBSEP "to_last_x_hub"), runs(b SUBSEP "to_last_x_hub"), median(b SUBSEP "cpu_x_hub"), runs(b SUBSEP "cpu_x_hub"), \
				largest(b SUBSEP "sql/event/replica"), largest(b SUBSEP "redis_commands/event")
			if ((b SUBSEP "redis_publishes/event") in count) printf ", %g Redis PUBLISH (target 1)", largest(b SUBSEP "redis_publishes/event")
			printf "; back to the baseline %.3g s after every client dropped (target <= 30)\n", largest(b SUBSEP "recovered_s")
		} else if ((b SUBSEP "p50_x_hand") in count) {
			h = median(b SUBSEP "p50_x_hand"); h95 = median(b SUBSEP "p95_x_hand")
			printf "%s: p50 %.4g ms = %.3g x the hand-written SQL's %.4g ms (target <= 1.5; runs %s), p95 %.4g ms = %.3g x its %.4g ms (target <= 1.5; runs %s)%s\n", \
				b, median(b SUBSEP "p50_ms"), h, median(b SUBSEP "hand_p50_ms"), runs(b SUBSEP "p50_x_hand"), \
				median(b SUBSEP "p95_ms"), h95, median(b SUBSEP "hand_p95_ms"), runs(b SUBSEP "p95_x_hand"), \
				(h > 1.5 || h95 > 1.5) ? " OVER TARGET" : ""
		} else if ((b SUBSEP "sql_first10/page") in count) {
			printf "%s: at most %g SQL statements per marketplace page of 10 and %g per page of 100 (target <= 3)\n", b, largest(b SUBSEP "sql_first10/page"), largest(b SUBSEP "sql_first100/page")
		} else if ((b SUBSEP "starts_won") in count) {
			p99 = median(b SUBSEP "start_p99_ms"); pg = (b ~ /postgres/)
			printf "%s: %g concurrent starts for 50 free GPUs: %g succeeded, %g UNAVAILABLE (target: exactly 50, the rest UNAVAILABLE); a start takes %.0f ms at p50, %.0f ms at p99 (over the rounds' starts together; each round's own p99 %.0f to %.0f ms; the untimed first round's %.0f ms%s)%s\n", \
				b, largest(b SUBSEP "starts_won") + largest(b SUBSEP "starts_unavailable"), largest(b SUBSEP "starts_won"), largest(b SUBSEP "starts_unavailable"), \
				median(b SUBSEP "start_p50_ms"), p99, median(b SUBSEP "start_p99_lowest_ms"), median(b SUBSEP "start_p99_highest_ms"), median(b SUBSEP "cold_p99_ms"), \
				pg ? "; target <= 300 ms on PostgreSQL" : "", (pg && p99 > 300) ? " OVER TARGET" : ""
		} else if ((b SUBSEP "sql/advice") in count) {
			printf "%s: price advice over %d rentals: p50 %.4g ms, p95 %.4g ms", b, largest(b SUBSEP "rentals"), median(b SUBSEP "p50_ms"), median(b SUBSEP "p95_ms")
			if ((b SUBSEP "p95_x_1x") in count) {
				r = median(b SUBSEP "p95_x_1x")
				printf " = %.3g x the p95 over a tenth of the history (target <= 1.2; runs %s)%s", r, runs(b SUBSEP "p95_x_1x"), (r > 1.2) ? " OVER TARGET" : ""
			}
			s = largest(b SUBSEP "sql/advice")
			printf "; at most %g SQL statements per advice (target <= 3)%s; history laid down in %.3g s\n", s, (s > 3) ? " OVER TARGET" : "", median(b SUBSEP "seed_s")
		} else if ((b SUBSEP "sql/history") in count) {
			r = median(b SUBSEP "p95_x_1x")
			printf "%s: a year of earnings by day: p95 %.4g ms at the metering's cadence, %.4g ms with 10x the ticks = %.3g x (target <= 1.2; runs %s)%s; p50 %.3g x; %g SQL statements per history\n", \
				b, median(b SUBSEP "p95_ms"), median(b SUBSEP "p95_10x_ms"), r, runs(b SUBSEP "p95_x_1x"), (r > 1.2) ? " OVER TARGET" : "", \
				median(b SUBSEP "p50_x_1x"), largest(b SUBSEP "sql/history")
		} else if ((b SUBSEP "sql/rental") in count) {
			s = largest(b SUBSEP "sql/rental")
			r = median(b SUBSEP "tick_x_period")
			printf "%s: one metering tick over %d rentals takes %.4g ms (median; runs %s) = %.3g of the metering period (target <= 0.33)%s; %g SQL statements, %.3g per rental (target <= 2)%s\n", \
				b, largest(b SUBSEP "rentals"), median(b SUBSEP "ms_per_tick"), runs(b SUBSEP "ms_per_tick"), r, (r > 0.33) ? " OVER TARGET" : "", largest(b SUBSEP "sql/tick"), s, (s > 2) ? " OVER TARGET" : ""
		} else if ((b SUBSEP "deliveries/s") in count) {
			r = largest(b SUBSEP "resolves/event/replica")
			printf "%s: earnings changes to 1000 followers: %.0f deliveries/s (%.3g changes/s); %g summary resolves per change per replica (target 1)%s, %g SQL statements each\n", \
				b, median(b SUBSEP "deliveries/s"), median(b SUBSEP "events/s"), r, (r > 1) ? " OVER TARGET" : "", largest(b SUBSEP "sql/event/replica")
		} else if ((b SUBSEP "sql/summary") in count) {
			r = median(b SUBSEP "p95_x_1x")
			printf "%s: provider summary over %d events: p95 %.4g ms = %.3g x the p95 over a tenth of the history, %.4g ms, read alternately (target <= 1.2; runs %s)%s; p50 %.4g ms against %.4g ms; its events statement p95 %.3g x (%.4g ms against %.4g ms); %g SQL statements per summary; tenfold history laid down in %.3g s\n", \
				b, largest(b SUBSEP "events"), median(b SUBSEP "p95_ms"), r, median(b SUBSEP "p95_1x_ms"), runs(b SUBSEP "p95_x_1x"), (r > 1.2) ? " OVER TARGET" : "", \
				median(b SUBSEP "p50_ms"), median(b SUBSEP "p50_1x_ms"), median(b SUBSEP "events_p95_x_1x"), median(b SUBSEP "events_p95_ms"), median(b SUBSEP "events_p95_1x_ms"), \
				largest(b SUBSEP "sql/summary"), median(b SUBSEP "seed_s")
		} else if ((b SUBSEP "sql/transition") in count) {
			s = largest(b SUBSEP "sql/transition")
			printf "%s: at most %g SQL statements per transition besides BEGIN and COMMIT (target <= 3)%s; p50 %.4g ms, p95 %.4g ms\n", b, s, (s > 3) ? " OVER TARGET" : "", median(b SUBSEP "transition_p50_ms"), median(b SUBSEP "transition_p95_ms")
		} else if ((b SUBSEP "rss_MiB") in count) {
			printf "%s: agent RSS %.3g MiB (target < 30), peak %.3g MiB, CPU %.3g%% of a core\n", b, median(b SUBSEP "rss_MiB"), largest(b SUBSEP "peak_rss_MiB"), median(b SUBSEP "cpu_%_of_a_core")
		}
	}
	# A parent fails with its sub-benchmark: name only the leaves.
	bad = 0
	for (k = 1; k <= nfailed; k++) {
		b = failorder[k]
		leaf = 1
		for (j = 1; j <= nfailed; j++) if (index(failorder[j], b "/") == 1) leaf = 0
		if (!leaf) continue
		printf "%s: FAILED%s\n", b, (failed[b] != "") ? ": " failed[b] : ""
		bad = 1
	}
	exit bad
}
