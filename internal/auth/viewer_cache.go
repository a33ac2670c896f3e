package auth

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
)

// viewerCacheTTL bounds how long a replica answers a session token from
// memory without reading it again. Every change to what a viewer holds
// evicts it at once on every replica (a log-out, a role granted, a
// language chosen: see viewerCache); the bound covers an announcement the
// bus lost, as agentCacheTTL does for agent tokens.
const viewerCacheTTL = 30 * time.Second

// viewerCache remembers the viewers of session tokens (keyed by the
// token's hash) so that a signed-in request, and a dashboard's socket
// reconnecting after a drill, authenticate without SQL while nothing
// changed: Authenticate reads three rows (session, user, roles)
// otherwise. A socket's check of its session on each subscribe
// (SessionExpiry) still reads its row: it is the backstop for an end
// whose announcement was missed, and one indexed read.
//
// gen guards against a read that raced an eviction: a look-up notes the
// generation before it reads the database and stores what it read only
// if no eviction came in between, so a viewer read before a role was
// granted (its transaction not yet committed) is never kept after the
// grant's eviction.
type viewerCache struct {
	mu        sync.Mutex
	gen       uint64
	byHash    map[tokenSum]*cachedViewer
	bySession map[int64]tokenSum // session id → token hash
	puts      int
}

type cachedViewer struct {
	viewer *Viewer
	// lastUsed and expires are the session's, as last read or written.
	lastUsed, expires time.Time
	// until is when the entry must be read again.
	until time.Time
}

func newViewerCache() *viewerCache {
	return &viewerCache{byHash: map[tokenSum]*cachedViewer{}, bySession: map[int64]tokenSum{}}
}

// get returns a copy of the entry of hash while it is fresh at now.
func (c *viewerCache) get(hash tokenSum, now time.Time) (cachedViewer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byHash[hash]
	if !ok {
		return cachedViewer{}, false
	}
	if !now.Before(e.until) || !now.Before(e.expires) {
		c.deleteLocked(hash, e)
		return cachedViewer{}, false
	}
	return *e, true
}

// generation is the count of evictions so far; see put.
func (c *viewerCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put stores e under hash unless an eviction happened since gen was read.
// Now and then it drops the entries that are no longer fresh, so the
// cache holds about the sessions used within viewerCacheTTL.
func (c *viewerCache) put(hash tokenSum, gen uint64, e cachedViewer, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if old, ok := c.byHash[hash]; ok {
		c.deleteLocked(hash, old)
	}
	c.byHash[hash] = &e
	c.bySession[e.viewer.SessionID] = hash
	if c.puts++; c.puts%1024 == 0 {
		for h, old := range c.byHash {
			if !now.Before(old.until) {
				c.deleteLocked(h, old)
			}
		}
	}
}

// used records that the session of hash slid to expires, last used at.
func (c *viewerCache) used(hash tokenSum, lastUsed, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byHash[hash]; ok {
		e.lastUsed, e.expires = lastUsed, expires
	}
}

func (c *viewerCache) deleteLocked(hash tokenSum, e *cachedViewer) {
	delete(c.byHash, hash)
	if c.bySession[e.viewer.SessionID] == hash {
		delete(c.bySession, e.viewer.SessionID)
	}
}

// dropSession evicts session id.
func (c *viewerCache) dropSession(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if hash, ok := c.bySession[id]; ok {
		c.deleteLocked(hash, c.byHash[hash])
	}
}

// dropUser evicts every session of user id.
func (c *viewerCache) dropUser(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for hash, e := range c.byHash {
		if e.viewer.User.ID == id {
			c.deleteLocked(hash, e)
		}
	}
}

// userChangedChannel carries the ids of users whose viewer changed (a role
// granted, a language chosen), so every replica evicts their sessions.
const userChangedChannel = "auth.user-changed"

// UserChanged evicts the cached sessions of user id here and, through
// the bus, on every replica, so the next request of any of them reads the
// user and their roles again. Call it once a change to the user or their
// roles is committed (GrantRole inside a transaction: after the commit).
func (s *Service) UserChanged(ctx context.Context, id int64) {
	s.viewers.dropUser(id)
	if s.deps.Bus == nil {
		return
	}
	if err := s.deps.Bus.Publish(ctx, userChangedChannel, strconv.AppendInt(nil, id, 10)); err != nil {
		s.deps.Logger.WarnContext(ctx, "auth: unable to announce a user's change; other replicas read it within 30s", "user_id", id, "err", err)
	}
}

// listenForViewerChanges evicts the sessions other replicas ended and the
// users they changed, until ctx ends. A gap in a subscription (Redis
// restarted) keeps what is held: an eviction it hid is bounded by
// viewerCacheTTL, as one whose publishing failed in the same outage is;
// dropping everything would send every socket that reconnects after the
// outage, all at once, to a database the outage may have slowed.
func (s *Service) listenForViewerChanges(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { s.ListenForSessionEnds(ctx, s.viewers.dropSession, nil) })
	wg.Go(func() {
		bus.Listen(ctx, s.deps.Bus, userChangedChannel, s.deps.Logger, nil, func(m bus.Message) {
			if id, err := strconv.ParseInt(string(m.Payload), 10, 64); err == nil {
				s.viewers.dropUser(id)
			}
		})
	})
	wg.Wait()
}
