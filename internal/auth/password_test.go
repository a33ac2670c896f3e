package auth_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

const password = "correct horse battery"

// Point 2 of issue 9: with the bound at one and a hash in progress, a
// second sign-in waits its HashWait and is answered RATE_LIMITED, having
// hashed nothing; once the first ends, sign-ins work again.
func TestSignInWaitsForAHashingSlotThenIsRateLimited(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const wait = 100 * time.Millisecond
		b := setup(t, db, auth.Config{ConcurrentHashes: 1, HashWait: wait})
		b.signUp(t, "ada@example.com")

		held, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		auth.SetHashHook(b.auth, func() {
			once.Do(func() {
				close(held)
				<-release
			})
		})
		first := make(chan error, 1)
		go func() {
			_, _, err := b.auth.LogIn(b.ctx, "ada@example.com", password, models.SessionBearer)
			first <- err
		}()
		<-held
		checks := b.auth.PasswordChecks()

		began := time.Now()
		_, _, err := b.auth.LogIn(b.ctx, "ada@example.com", password, models.SessionBearer)
		require.Equal(t, fault.RateLimited, fault.CodeOf(err), "%v", err)
		require.GreaterOrEqual(t, time.Since(began), wait, "it waited for a slot first")
		_, _, err = b.auth.SignUp(b.ctx, auth.SignUpInput{Email: "bob@example.com", Password: password, Name: "Bob"}, models.SessionBearer)
		require.Equal(t, fault.RateLimited, fault.CodeOf(err), "signUp shares the bound: %v", err)
		require.Equal(t, checks, b.auth.PasswordChecks(), "nothing hashed while refused")
		require.Equal(t, 1, b.count(t, (*models.User)(nil)), "the refused signUp stored nothing")

		close(release)
		require.NoError(t, <-first)
		_, _, err = b.auth.LogIn(b.ctx, "ada@example.com", password, models.SessionBearer)
		require.NoError(t, err, "the slot is free again")
	})
}

// Point 2 of issue 9, memory flat under 200 concurrent sign-ins: the
// memory of hashing is ConcurrentHashes × PasswordParams.Memory, so the
// test shows the bound holds; it never measures RSS.
func TestConcurrentSignInsNeverHashMoreThanTheBound(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const bound, clients = 3, 200
		b := setup(t, db, auth.Config{ConcurrentHashes: bound, HashWait: time.Minute})
		b.signUp(t, "ada@example.com")
		var peak atomic.Int64
		auth.SetHashHook(b.auth, func() {
			n := auth.HashesRunning(b.auth)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(time.Millisecond) // let the others pile up
		})
		checks := b.auth.PasswordChecks()
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for range clients {
			wg.Go(func() {
				_, _, err := b.auth.LogIn(b.ctx, "ada@example.com", password, models.SessionBearer)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Equal(t, checks+clients, b.auth.PasswordChecks())
		require.Equal(t, int64(bound), peak.Load(), "at most %d hashes at once, and the bound was reached", bound)
	})
}

// The bound defaults to one hash per core.
func TestHashingBoundDefaultsToTheCores(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		require.Equal(t, runtime.NumCPU(), auth.HashBound(setup(t, db).auth))
	})
}
