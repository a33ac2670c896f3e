package mail_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/mail/mailtest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestCommittedEmailIsDeliveredOverSMTP(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{})
		msg := approval("Ada Lovelace <ada@example.com>")
		msg.Subject = "Bienvenue, Ada — your application was approved"
		msg.Text = "Grüße, Ada!\n" + msg.Text
		b.enqueue(t, msg)

		require.Empty(t, b.smtp.Messages(), "nothing leaves before the worker runs")
		require.Equal(t, 1, b.sendDue(t))

		got := b.smtp.Messages()
		require.Len(t, got, 1)
		require.Equal(t, "noreply@gpunex.io", got[0].From, "envelope sender")
		require.Equal(t, []string{"ada@example.com"}, got[0].To, "envelope recipient")
		p := parse(t, got[0].Data)
		from, err := p.Header.AddressList("From")
		require.NoError(t, err)
		require.Equal(t, "GPUnex", from[0].Name)
		require.Equal(t, "noreply@gpunex.io", from[0].Address)
		to, err := p.Header.AddressList("To")
		require.NoError(t, err)
		require.Equal(t, "ada@example.com", to[0].Address)
		require.Equal(t, msg.Subject, p.Subject)
		require.Equal(t, msg.Text, p.Text())
		require.Equal(t, msg.HTML, p.HTML())
		date, err := p.Header.Date()
		require.NoError(t, err)
		require.True(t, date.Equal(t0), "Date is when the email was enqueued: %v", date)
		require.Equal(t, "application.approved", p.Header.Get("X-GPUnex-Kind"))
		require.Equal(t, "auto-generated", p.Header.Get("Auto-Submitted"))
		require.NotEmpty(t, p.Header.Get("Message-Id"))
		require.Empty(t, p.Header.Get("Content-Language"), "a message written in no particular language claims none")

		row := b.row(t, msg.Subject)
		require.NotNil(t, row.SentAt)
		require.True(t, row.SentAt.Equal(t0))
		require.Equal(t, 1, row.Attempts)
		require.Nil(t, row.LockedUntil)
		require.Zero(t, b.sendDue(t), "a sent email is not sent again")
		require.Len(t, b.smtp.Messages(), 1)
	})
}

func TestRolledBackEmailIsNeverSent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{})
		var woken atomic.Int32
		outbox := mail.NewOutbox(b.clock, func() { woken.Add(1) })
		boom := errors.New("decision failed after the email was enqueued")
		err := db.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
			require.NoError(t, outbox.Enqueue(ctx, tx, approval("ada@example.com")))
			return boom
		})
		require.ErrorIs(t, err, boom)

		n, err := db.NewSelect().Model((*models.OutboxEmail)(nil)).Count(context.Background())
		require.NoError(t, err)
		require.Zero(t, n, "the email rolled back with the decision")
		require.Zero(t, woken.Load(), "the worker is not woken for a rolled-back transaction")
		require.Zero(t, b.sendDue(t))
		require.Zero(t, b.smtp.DataCalls())
	})
}

func TestDedupeKeyEnqueuedTwiceSendsOneEmail(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{})
		msg := approval("ada@example.com")
		msg.DedupeKey = "application:42:approved"
		// Twice in one transaction, and again in another, as a retried
		// decision would.
		err := db.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
			require.NoError(t, b.outbox.Enqueue(ctx, tx, msg))
			return b.outbox.Enqueue(ctx, tx, msg)
		})
		require.NoError(t, err, "a duplicate does not abort the caller's transaction")
		b.enqueue(t, msg)

		other := approval("ada@example.com")
		other.Subject = "A different decision"
		other.DedupeKey = "application:42:rejected"
		b.enqueue(t, other)
		b.enqueue(t, approval("bob@example.com")) // no key: never deduplicated
		b.enqueue(t, approval("bob@example.com"))

		n, err := db.NewSelect().Model((*models.OutboxEmail)(nil)).Count(context.Background())
		require.NoError(t, err)
		require.EqualValues(t, 4, n)
		require.Equal(t, 4, b.sendDue(t))
		toAda := 0
		for _, m := range b.smtp.Messages() {
			if m.To[0] == "ada@example.com" && parse(t, m.Data).Subject == msg.Subject {
				toAda++
			}
		}
		require.Equal(t, 1, toAda)
	})
}

func TestFailingServerIsRetriedWithBackoffThenDelivered(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{}, failingFirst(2))
		msg := approval("ada@example.com")
		b.enqueue(t, msg)

		// Attempt 1 fails: retried after 10s·2^0 with jitter, 5s..10s.
		require.Zero(t, b.sendDue(t))
		require.Equal(t, 1, b.smtp.DataCalls())
		row := b.row(t, msg.Subject)
		require.Equal(t, 1, row.Attempts)
		require.Nil(t, row.SentAt)
		require.Nil(t, row.LockedUntil, "a failed attempt releases its claim")
		require.Contains(t, row.LastError, "451")
		require.NotContains(t, row.LastError, msg.Text)
		wait := row.NextAttemptAt.Sub(b.clock.Now())
		require.GreaterOrEqual(t, wait, 5*time.Second)
		require.LessOrEqual(t, wait, 10*time.Second)

		require.Zero(t, b.sendDue(t), "not due yet")
		b.clock.Set(row.NextAttemptAt.Add(-time.Millisecond))
		require.Zero(t, b.sendDue(t), "not due a millisecond early")
		require.Equal(t, 1, b.smtp.DataCalls())

		// Attempt 2 fails: retried after 10s·2^1 with jitter, 10s..20s.
		b.clock.Set(row.NextAttemptAt)
		require.Zero(t, b.sendDue(t))
		require.Equal(t, 2, b.smtp.DataCalls())
		row = b.row(t, msg.Subject)
		require.Equal(t, 2, row.Attempts)
		wait = row.NextAttemptAt.Sub(b.clock.Now())
		require.GreaterOrEqual(t, wait, 10*time.Second)
		require.LessOrEqual(t, wait, 20*time.Second)
		b.clock.Set(row.NextAttemptAt.Add(-time.Millisecond))
		require.Zero(t, b.sendDue(t))
		require.Equal(t, 2, b.smtp.DataCalls())

		// Attempt 3 is delivered.
		b.clock.Set(row.NextAttemptAt)
		require.Equal(t, 1, b.sendDue(t))
		require.Equal(t, 3, b.smtp.DataCalls())
		require.Len(t, b.smtp.Messages(), 1)
		row = b.row(t, msg.Subject)
		require.Equal(t, 3, row.Attempts)
		require.NotNil(t, row.SentAt)
		require.True(t, row.SentAt.Equal(b.clock.Now()))
		require.Nil(t, row.FailedAt)
	})
}

func TestWorkerGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{MaxAttempts: 3}, failingFirst(1000))
		msg := approval("ada@example.com")
		b.enqueue(t, msg)
		for attempt := 1; attempt <= 3; attempt++ {
			require.Zero(t, b.sendDue(t))
			require.Equal(t, attempt, b.smtp.DataCalls())
			b.clock.Set(b.row(t, msg.Subject).NextAttemptAt)
		}
		row := b.row(t, msg.Subject)
		require.Equal(t, 3, row.Attempts)
		require.NotNil(t, row.FailedAt, "marked failed after MaxAttempts")
		require.Nil(t, row.SentAt)
		require.Contains(t, row.LastError, "451")

		b.clock.Advance(48 * time.Hour)
		require.Zero(t, b.sendDue(t))
		require.Equal(t, 3, b.smtp.DataCalls(), "a failed email is not tried again")
		require.Contains(t, b.logs.String(), "giving up")
	})
}

func TestTwoWorkersRacingSendEachEmailOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		a := setup(t, db, mail.WorkerConfig{BatchSize: 7})
		// A second replica: its own worker and sender, the same database,
		// clock and SMTP server.
		sender, err := mail.NewSender("smtp://"+a.smtp.addr, t.TempDir(), testFrom)
		require.NoError(t, err)
		b := mail.NewWorker(mail.WorkerDeps{DB: db, Sender: sender, Clock: a.clock}, mail.WorkerConfig{BatchSize: 7})

		const total = 30
		for i := range total {
			msg := approval("ada@example.com")
			msg.Subject = "Message " + strings.Repeat("i", i+1)
			a.enqueue(t, msg)
		}

		var wg sync.WaitGroup
		counts := make([]int, 2)
		for i, w := range []*mail.Worker{a.worker, b} {
			wg.Go(func() {
				for range 3 {
					n, err := w.SendDue(context.Background())
					if !assertNoError(t, err) {
						return
					}
					counts[i] += n
				}
			})
		}
		wg.Wait()
		t.Logf("worker A sent %d, worker B sent %d", counts[0], counts[1])
		require.Equal(t, total, counts[0]+counts[1])

		got := a.smtp.Messages()
		require.Len(t, got, total, "each email arrived exactly once")
		seen := map[string]bool{}
		for _, m := range got {
			s := parse(t, m.Data).Subject
			require.False(t, seen[s], "%q arrived twice", s)
			seen[s] = true
		}
		n, err := db.NewSelect().Model((*models.OutboxEmail)(nil)).Where("sent_at IS NOT NULL AND attempts = 1").Count(context.Background())
		require.NoError(t, err)
		require.EqualValues(t, total, n)
	})
}

// assertNoError reports err from a goroutine, where require must not be
// used.
func assertNoError(t *testing.T, err error) bool {
	if err != nil {
		t.Errorf("unexpected error: %v", err)
		return false
	}
	return true
}

func TestClaimOfADeadWorkerExpiresAfterItsLease(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{Lease: time.Minute})
		msg := approval("ada@example.com")
		b.enqueue(t, msg)
		// A replica claimed the row and died before sending it.
		_, err := db.NewUpdate().Model((*models.OutboxEmail)(nil)).
			Set("locked_until = ?", t0.Add(time.Minute)).Where("subject = ?", msg.Subject).
			Exec(context.Background())
		require.NoError(t, err)

		require.Zero(t, b.sendDue(t), "claimed by another worker")
		b.clock.Set(t0.Add(time.Minute))
		require.Zero(t, b.sendDue(t), "the lease still holds at its last instant")
		b.clock.Set(t0.Add(time.Minute + time.Second))
		require.Equal(t, 1, b.sendDue(t), "sent once the lease ran out")
		require.Len(t, b.smtp.Messages(), 1)
	})
}

func TestRunDeliversWhenKickedAndStopsWithItsContext(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		// An hour between polls: only Kick (from the outbox's after-commit
		// hook) can make these emails leave within the test.
		b := setup(t, db, mail.WorkerConfig{Interval: time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- b.worker.Run(ctx) }()

		first := approval("ada@example.com")
		b.enqueue(t, first)
		await.True(t, func() bool { return len(b.smtp.Messages()) == 1 })
		second := approval("bob@example.com")
		second.Subject = "Second"
		b.enqueue(t, second)
		await.True(t, func() bool { return len(b.smtp.Messages()) == 2 })

		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-await.Timeout(t):
			t.Fatal("Run did not return after its context ended")
		}
	})
}

func TestLogsAndErrorsNeverHoldTheBodyOrPassword(t *testing.T) {
	t.Parallel()
	const password = "s3cret-Pa55word"
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{}, withAuth("gpunex", password), failingFirst(1))
		msg := approval("ada@example.com")
		msg.Text = "BODY-MARKER: your token setup steps"
		msg.HTML = "<p>HTML-MARKER</p>"
		b.enqueue(t, msg)

		require.Zero(t, b.sendDue(t))
		row := b.row(t, msg.Subject)
		b.clock.Set(row.NextAttemptAt)
		require.Equal(t, 1, b.sendDue(t), "authenticated with AUTH PLAIN and delivered")
		require.Len(t, b.smtp.Messages(), 1)

		row = b.row(t, msg.Subject)
		logs := b.logs.String()
		require.Contains(t, logs, "delivery failed")
		require.Contains(t, logs, "email sent")
		for _, secret := range []string{password, "BODY-MARKER", "HTML-MARKER"} {
			require.NotContains(t, logs, secret)
			require.NotContains(t, row.LastError, secret)
		}
	})
}

func TestWrongSMTPPasswordIsRecordedWithoutIt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{}, withAuth("gpunex", "right-password"))
		const wrong = "wrong-Pa55word"
		sender, err := mail.NewSender("smtp://gpunex:"+wrong+"@"+b.smtp.addr+"?auth=plain", t.TempDir(), testFrom)
		require.NoError(t, err)
		w := mail.NewWorker(mail.WorkerDeps{DB: db, Sender: sender, Clock: b.clock}, mail.WorkerConfig{})
		msg := approval("ada@example.com")
		b.enqueue(t, msg)
		n, err := w.SendDue(context.Background())
		require.NoError(t, err)
		require.Zero(t, n)
		row := b.row(t, msg.Subject)
		require.Contains(t, row.LastError, "535")
		require.NotContains(t, row.LastError, wrong)
		require.Nil(t, row.FailedAt, "a rejected login is the account's problem, not the email's: retried")
	})
}

func TestFileSinkWorkerWritesOneEMLPerEmail(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		dataDir := t.TempDir()
		sender, err := mail.NewSender("", dataDir, testFrom)
		require.NoError(t, err)
		b := setup(t, db, mail.WorkerConfig{})
		w := mail.NewWorker(mail.WorkerDeps{DB: db, Sender: sender, Clock: b.clock}, mail.WorkerConfig{})
		b.enqueue(t, approval("ada@example.com"))
		n, err := w.SendDue(context.Background())
		require.NoError(t, err)
		require.Equal(t, 1, n)
		files := emlFiles(t, dataDir)
		require.Len(t, files, 1)
		row := b.row(t, approval("").Subject)
		require.True(t, strings.HasSuffix(files[0], "-"+itoa64(row.ID)+".eml"), files[0])
	})
}

func TestBackoffIsExponentialWithJitterCappedAtAnHour(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc     string
		attempts int
		min, max time.Duration
	}{
		{"after the first failure: 10s with jitter", 1, 5 * time.Second, 10 * time.Second},
		{"after the second: 20s", 2, 10 * time.Second, 20 * time.Second},
		{"after the third: 40s", 3, 20 * time.Second, 40 * time.Second},
		{"after the seventh: 640s", 7, 320 * time.Second, 640 * time.Second},
		{"capped at an hour", 10, 30 * time.Minute, time.Hour},
		{"still capped far out, without overflow", 500, 30 * time.Minute, time.Hour},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			seen := map[time.Duration]bool{}
			for range 200 {
				d := mail.ExponentialBackoff(c.attempts)
				require.GreaterOrEqual(t, d, c.min)
				require.LessOrEqual(t, d, c.max)
				seen[d] = true
			}
			require.Greater(t, len(seen), 1, "jittered, not fixed")
		})
	}
}

func TestPermanentRefusalFailsAtOnceWhileTemporaryIsRetried(t *testing.T) {
	t.Parallel()
	const password = "perm-Pa55word"
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{},
			withAuth("gpunex", password),
			refusing("nobody@example.com", mailtest.Reply{Code: 550, Enhanced: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}),
			refusing("busy@example.com", mailtest.Reply{Code: 451, Enhanced: smtp.EnhancedCode{4, 2, 1}, Message: "Mailbox busy, try again later", Times: 1}))
		unknown := approval("nobody@example.com")
		unknown.Subject = "To an unknown mailbox"
		busy := approval("busy@example.com")
		busy.Subject = "To a busy mailbox"
		valid := approval("ada@example.com")
		for _, msg := range []mail.Message{unknown, busy, valid} {
			b.enqueue(t, msg)
		}

		require.Equal(t, 1, b.sendDue(t), "one pass over the batch sends the valid email")
		got := b.smtp.Messages()
		require.Len(t, got, 1)
		require.Equal(t, []string{"ada@example.com"}, got[0].To)
		require.NotNil(t, b.row(t, valid.Subject).SentAt)

		row := b.row(t, unknown.Subject)
		require.Equal(t, 1, row.Attempts)
		require.NotNil(t, row.FailedAt, "a 550 fails the email after one attempt")
		require.True(t, row.FailedAt.Equal(t0))
		require.Nil(t, row.SentAt)
		require.Nil(t, row.LockedUntil)
		require.Contains(t, row.LastError, `550 "5.1.1 No such user"`, "the reason names the server's reply")
		require.Contains(t, row.LastError, "RCPT TO")
		require.NotContains(t, row.LastError, password)
		require.Equal(t, 1, b.smtp.RcptCalls("nobody@example.com"))

		row = b.row(t, busy.Subject)
		require.Equal(t, 1, row.Attempts)
		require.Nil(t, row.FailedAt, "a 451 is retried")
		require.Nil(t, row.SentAt)
		require.Contains(t, row.LastError, "451")
		wait := row.NextAttemptAt.Sub(b.clock.Now())
		require.GreaterOrEqual(t, wait, 5*time.Second)
		require.LessOrEqual(t, wait, 10*time.Second)

		b.clock.Set(row.NextAttemptAt)
		require.Equal(t, 1, b.sendDue(t), "the busy mailbox accepts the retry")
		row = b.row(t, busy.Subject)
		require.Equal(t, 2, row.Attempts)
		require.NotNil(t, row.SentAt)
		require.Nil(t, row.FailedAt)
		require.Len(t, b.smtp.Messages(), 2)

		b.clock.Advance(48 * time.Hour)
		require.Zero(t, b.sendDue(t))
		require.Equal(t, 1, b.smtp.RcptCalls("nobody@example.com"), "a refused email is never tried again")
		require.Equal(t, 1, b.row(t, unknown.Subject).Attempts)

		logs := b.logs.String()
		require.Equal(t, 1, strings.Count(logs, "failed permanently"), "logged once: %s", logs)
		require.NotContains(t, logs, password)
		require.NotContains(t, logs, "giving up")
	})
}

func TestUnbuildableEmailFailsAtOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{})
		// Enqueue refuses such a message; a row written before a rule
		// was tightened, or by hand, can still hold one.
		row := &models.OutboxEmail{
			Kind: "application.approved", ToAddress: "not an address", Subject: "Unbuildable",
			TextBody: "text", CreatedAt: t0, NextAttemptAt: t0,
		}
		_, err := db.NewInsert().Model(row).Exec(context.Background())
		require.NoError(t, err)

		require.Zero(t, b.sendDue(t))
		row = b.row(t, "Unbuildable")
		require.Equal(t, 1, row.Attempts)
		require.NotNil(t, row.FailedAt, "failed at its first attempt")
		require.Contains(t, row.LastError, "invalid message")
		require.Zero(t, b.smtp.DataCalls())

		b.clock.Advance(48 * time.Hour)
		require.Zero(t, b.sendDue(t))
		require.Equal(t, 1, b.row(t, "Unbuildable").Attempts)
	})
}
