package auth

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/argon2id"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// Limits on account input.
const (
	MinPasswordLength = 10
	// MaxPasswordLength bounds the work one login attempt can cause.
	MaxPasswordLength = 256
	MaxNameLength     = 100
	// MaxEmailLength is validate.MaxEmailBytes, the limit of every email.
	MaxEmailLength = validate.MaxEmailBytes
)

// DefaultSessionTTL is how long a session lasts without use.
const DefaultSessionTTL = 30 * 24 * time.Hour

// lastUsedResolution bounds how often a session's last use is written:
// at most once per hour per session, not on every request.
const lastUsedResolution = time.Hour

// DefaultParams are the argon2id parameters for production: RFC 9106's
// second recommended option (64 MiB, 3 passes), two lanes.
var DefaultParams = &argon2id.Params{Memory: 64 * 1024, Iterations: 3, Parallelism: 2, SaltLength: 16, KeyLength: 32}

// SignUpHook runs inside the sign-up transaction, after the user row and
// its roles exist. Other services attach here (the welcome notification)
// without auth knowing them.
type SignUpHook func(ctx context.Context, tx bun.Tx, u *models.User) error

// Deps are what the account service uses.
type Deps struct {
	DB *store.DB
	// Bus lets revocations of agent tokens reach every replica at once
	// (nil: this replica only).
	Bus    bus.Bus
	Clock  clock.Clock
	Logger *slog.Logger
	// Redis, when set, keeps the sign-in attempt counters so replicas
	// share them (nil: in memory, this replica only).
	Redis *redis.Client
}

// Config tunes the account service. Zero values take the defaults.
type Config struct {
	// PasswordParams are the argon2id parameters (default DefaultParams;
	// tests use authtest.Params).
	PasswordParams *argon2id.Params
	// SessionTTL is how long a session lasts without use (default
	// DefaultSessionTTL).
	SessionTTL time.Duration
	// ConcurrentHashes bounds the password hashes and verifications that
	// run at once (default runtime.NumCPU()): each holds
	// PasswordParams.Memory, so this bounds the memory of sign-ins.
	// HashWait is how long a sign-in waits for its turn before it is
	// answered RATE_LIMITED (default DefaultHashWait).
	ConcurrentHashes int
	HashWait         time.Duration
	// Limits bound sign-in attempts per account and client address
	// (default DefaultLimits, field by field).
	Limits Limits
	// RedisPrefix namespaces the attempt counters in Redis (default
	// bus.DefaultPrefix, the deployment's).
	RedisPrefix string
}

// Service manages accounts and sessions.
type Service struct {
	deps       Deps
	hasher     *hasher
	limiter    *limiter
	sessionTTL time.Duration
	onSignUp   []SignUpHook
	// signUpMailer writes the emails of the public sign-up (see
	// UseSignUpMail).
	signUpMailer *SignUpMail
	agentCache   sync.Map // token hash -> cachedAgent
	viewers      *viewerCache
	// agentUsed are told of every request an agent token authenticates
	// (see OnAgentUse).
	agentUsed []func(ctx context.Context, a *Agent, at time.Time)
	// dummyHash is verified against when an email is unknown, so a login
	// takes the same time whether or not the account exists.
	dummyHash string
}

// New returns an account service.
func New(deps Deps, cfg Config) *Service {
	if cfg.PasswordParams == nil {
		cfg.PasswordParams = DefaultParams
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.ConcurrentHashes <= 0 {
		cfg.ConcurrentHashes = runtime.NumCPU()
	}
	if cfg.HashWait <= 0 {
		cfg.HashWait = DefaultHashWait
	}
	s := &Service{deps: deps, hasher: newHasher(cfg.PasswordParams, cfg.ConcurrentHashes, cfg.HashWait), sessionTTL: cfg.SessionTTL, viewers: newViewerCache()}
	h, err := argon2id.CreateHash("gpunex-timing-equaliser", cfg.PasswordParams)
	if err != nil {
		panic("auth: unable to create the timing hash: " + err.Error())
	}
	s.dummyHash = h
	cfg.Limits.defaults()
	var store AttemptStore = NewMemoryAttempts(deps.Clock)
	if deps.Redis != nil {
		if cfg.RedisPrefix == "" {
			cfg.RedisPrefix = bus.DefaultPrefix
		}
		store = NewRedisAttempts(deps.Redis, cfg.RedisPrefix)
	}
	s.limiter = &limiter{store: store, limits: cfg.Limits, svc: s}
	return s
}

// OnSignUp registers a hook run in every sign-up transaction.
func (s *Service) OnSignUp(h SignUpHook) { s.onSignUp = append(s.onSignUp, h) }

// SessionTTL is how long a new session lasts.
func (s *Service) SessionTTL() time.Duration { return s.sessionTTL }

// SignUpInput is what a new user gives.
type SignUpInput struct {
	Email    string
	Password string
	Name     string
}

// Session is a newly issued session: the token is shown once.
type Session struct {
	Token     string
	ExpiresAt time.Time
}

// NormalizeEmail trims and lower-cases an email for storage and lookup.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// The rules of account fields.
var (
	nameRule = validate.Text{Required: true, MaxRunes: MaxNameLength}
	// passwordRule counts the minimum in characters, what a person types,
	// and the maximum in bytes, what hashing costs; any character goes.
	passwordRule = validate.Text{Required: true, MinRunes: MinPasswordLength, MaxBytes: MaxPasswordLength, Chars: validate.Secret}
)

// validateAccount records on v what is wrong with a normalised email, a
// password and a trimmed name, each named under prefix.
func validateAccount(v *fault.Validation, prefix validate.Path, email, password, name string) {
	validate.Email(v, prefix.Field("email"), email)
	passwordRule.Check(v, prefix.Field("password"), password)
	nameRule.Check(v, prefix.Field("name"), name)
}

func (s *Service) insertUser(ctx context.Context, tx bun.IDB, email, name, hash string, lang models.Language, roles []models.Role) (*models.User, error) {
	now := s.deps.Clock.Now()
	user := &models.User{Email: email, Name: name, PasswordHash: hash, Language: lang.Or(models.DefaultLanguage), CreatedAt: now, UpdatedAt: now}
	if _, err := tx.NewInsert().Model(user).Returning("id").Exec(ctx); err != nil {
		if s.deps.DB.IsUniqueViolation(err) {
			var v fault.Validation
			v.Add("input.email", fault.Taken, "an account with this email already exists")
			return nil, &v
		}
		return nil, fmt.Errorf("auth: unable to create user: %w", err)
	}
	for _, r := range roles {
		if err := s.grant(ctx, tx, user.ID, r); err != nil {
			return nil, err
		}
	}
	user.Roles = sortRoles(roles)
	return user, nil
}

func (s *Service) grant(ctx context.Context, idb bun.IDB, userID int64, role models.Role) error {
	ur := &models.UserRole{UserID: userID, Role: role, CreatedAt: s.deps.Clock.Now()}
	if _, err := idb.NewInsert().Model(ur).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("auth: unable to grant role: %w", err)
	}
	return nil
}

// GrantRole gives userID role, inside idb's transaction when it is one.
// Granting a role the user holds already is not an error. Once the grant
// is committed it calls UserChanged, so that sessions cached on any
// replica take the role at once: as an after-commit hook of ctx's
// transaction, registered now, so it runs before the hooks the caller
// adds later in it (an approval's notification, on which the applicant's
// page asks for its roles again).
func (s *Service) GrantRole(ctx context.Context, idb bun.IDB, userID int64, role models.Role) error {
	if !role.IsValid() {
		return fault.E(fault.Invalid, "unknown role %q", role)
	}
	if err := s.grant(ctx, idb, userID, role); err != nil {
		return err
	}
	store.AfterCommit(ctx, func() { s.UserChanged(ctx, userID) })
	return nil
}

// CreateUser creates an account with roles (the operator's
// `gpunex user create`); customer is always among them.
func (s *Service) CreateUser(ctx context.Context, in SignUpInput, roles ...models.Role) (*models.User, error) {
	email := NormalizeEmail(in.Email)
	name := strings.TrimSpace(in.Name)
	var v fault.Validation
	validateAccount(&v, validate.At(""), email, in.Password, name)
	if err := v.Err(); err != nil {
		return nil, err
	}
	hash, err := s.hasher.hash(ctx, in.Password)
	if err != nil {
		return nil, fmt.Errorf("auth: unable to hash password: %w", err)
	}
	all := append([]models.Role{models.RoleCustomer}, roles...)
	var user *models.User
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		user, err = s.insertUser(ctx, tx, email, name, hash, models.DefaultLanguage, all)
		return err
	})
	return user, err
}

// LogIn checks an email and password and opens a session. Unknown email and
// wrong password give the same error, after the same amount of work.
func (s *Service) LogIn(ctx context.Context, email, password string, kind models.SessionKind) (*models.User, *Session, error) {
	email = NormalizeEmail(email)
	var v fault.Validation
	// Only what bounds the work: a wrong email or a short password is
	// just a failed log-in.
	validate.Text{Required: true, Chars: validate.Secret}.Check(&v, validate.At("input.email"), email)
	validate.Text{Required: true, MaxBytes: MaxPasswordLength, Chars: validate.Secret}.Check(&v, validate.At("input.password"), password)
	if err := v.Err(); err != nil {
		return nil, nil, err
	}
	addr := ClientAddr(ctx)
	if err := s.limiter.checkLogIn(ctx, email, addr); err != nil {
		return nil, nil, err
	}
	user := new(models.User)
	err := s.deps.DB.NewSelect().Model(user).Where("email = ?", email).Scan(ctx)
	if err != nil && !store.IsNoRows(err) {
		return nil, nil, fmt.Errorf("auth: unable to look up user: %w", err)
	}
	hash := s.dummyHash
	if err == nil {
		hash = user.PasswordHash
	}
	ok, cmpErr := s.hasher.verify(ctx, password, hash)
	if cmpErr != nil {
		return nil, nil, fmt.Errorf("auth: unable to verify password: %w", cmpErr)
	}
	if err != nil || !ok {
		s.limiter.failedLogIn(ctx, email, addr)
		v.Add("input.password", fault.InvalidCredentials, "email or password is wrong")
		return nil, nil, &v
	}
	s.limiter.succeededLogIn(ctx, email)
	if user.Roles, err = s.Roles(ctx, user.ID); err != nil {
		return nil, nil, err
	}
	sess, err := s.newSession(ctx, s.deps.DB.DB, user.ID, kind)
	if err != nil {
		return nil, nil, err
	}
	return user, sess, nil
}

// VerifyPassword checks userID's password again before a sensitive
// change (a payout method): a wrong one is INVALID_CREDENTIALS on
// input.password, counted by the log-in limiter like a failed log-in.
func (s *Service) VerifyPassword(ctx context.Context, userID int64, password string) error {
	var v fault.Validation
	validate.Text{Required: true, MaxBytes: MaxPasswordLength, Chars: validate.Secret}.Check(&v, validate.At("input.password"), password)
	if err := v.Err(); err != nil {
		return err
	}
	user := new(models.User)
	if err := s.deps.DB.NewSelect().Model(user).Column("email", "password_hash").Where("id = ?", userID).Scan(ctx); err != nil {
		return fmt.Errorf("auth: unable to look up user: %w", err)
	}
	addr := ClientAddr(ctx)
	if err := s.limiter.checkLogIn(ctx, user.Email, addr); err != nil {
		return err
	}
	ok, err := s.hasher.verify(ctx, password, user.PasswordHash)
	if err != nil {
		return fmt.Errorf("auth: unable to verify password: %w", err)
	}
	if !ok {
		s.limiter.failedLogIn(ctx, user.Email, addr)
		v.Add("input.password", fault.InvalidCredentials, "the password is wrong")
		return &v
	}
	return nil
}

func (s *Service) newSession(ctx context.Context, idb bun.IDB, userID int64, kind models.SessionKind) (*Session, error) {
	now := s.deps.Clock.Now()
	token := newToken(SessionTokenPrefix)
	row := &models.Session{
		UserID: userID, TokenHash: HashToken(token), Kind: kind,
		CreatedAt: now, LastUsedAt: now, ExpiresAt: now.Add(s.sessionTTL),
	}
	if _, err := idb.NewInsert().Model(row).Exec(ctx); err != nil {
		return nil, fmt.Errorf("auth: unable to create session: %w", err)
	}
	return &Session{Token: token, ExpiresAt: row.ExpiresAt}, nil
}

// Authenticate resolves a session token to its viewer. A malformed, unknown
// or expired token is UNAUTHENTICATED. Use slides the expiry forward.
func (s *Service) Authenticate(ctx context.Context, token string) (*Viewer, error) {
	if !looksLikeToken(SessionTokenPrefix, token) {
		return nil, fault.E(fault.Unauthenticated, "the session token is not valid")
	}
	sum := sumToken(token)
	now := s.deps.Clock.Now()
	if e, ok := s.viewers.get(sum, now); ok {
		if expires, ok := s.slide(ctx, e.viewer.SessionID, e.lastUsed, now); ok {
			s.viewers.used(sum, now, expires)
		}
		return e.viewer.clone(), nil
	}
	gen := s.viewers.generation()
	sess := new(models.Session)
	err := s.deps.DB.NewSelect().Model(sess).Where("token_hash = ?", sum.hex()).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, fault.E(fault.Unauthenticated, "the session is not valid or has ended")
	}
	if err != nil {
		return nil, fmt.Errorf("auth: unable to look up session: %w", err)
	}
	if !now.Before(sess.ExpiresAt) {
		return nil, fault.E(fault.Unauthenticated, "the session has expired; sign in again")
	}
	user := new(models.User)
	if err := s.deps.DB.NewSelect().Model(user).Where("id = ?", sess.UserID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("auth: unable to load session user: %w", err)
	}
	roles, err := s.Roles(ctx, user.ID)
	if err != nil {
		return nil, err
	}
	user.Roles = roles
	v := &Viewer{User: user, Roles: roles, SessionID: sess.ID, SessionKind: sess.Kind}
	e := cachedViewer{viewer: v, lastUsed: sess.LastUsedAt, expires: sess.ExpiresAt, until: now.Add(viewerCacheTTL)}
	if expires, ok := s.slide(ctx, sess.ID, sess.LastUsedAt, now); ok {
		e.lastUsed, e.expires = now, expires
	}
	s.viewers.put(sum, gen, e, now)
	return v.clone(), nil
}

// slide moves session id's expiry forward from now when its last use,
// lastUsed, is lastUsedResolution old or older, and returns the new
// expiry and true when it did. A failure is logged: the request goes on.
func (s *Service) slide(ctx context.Context, id int64, lastUsed, now time.Time) (time.Time, bool) {
	if now.Sub(lastUsed) < lastUsedResolution {
		return time.Time{}, false
	}
	expires := now.Add(s.sessionTTL)
	_, err := s.deps.DB.NewUpdate().Model((*models.Session)(nil)).
		Set("last_used_at = ?", now).Set("expires_at = ?", expires).
		Where("id = ?", id).Exec(ctx)
	if err != nil {
		s.deps.Logger.WarnContext(ctx, "auth: unable to refresh session", "session_id", id, "err", err)
		return time.Time{}, false
	}
	return expires, true
}

// LogOut ends the session of token and reports whether one was ended.
// Its sockets close on every replica (see ListenForSessionEnds).
func (s *Service) LogOut(ctx context.Context, token string) (bool, error) {
	if !looksLikeToken(SessionTokenPrefix, token) {
		return false, nil
	}
	var ids []int64
	err := s.deps.DB.NewSelect().Model((*models.Session)(nil)).Column("id").
		Where("token_hash = ?", HashToken(token)).Scan(ctx, &ids)
	if err != nil {
		return false, fmt.Errorf("auth: unable to find session: %w", err)
	}
	if len(ids) == 0 {
		return false, nil
	}
	return s.EndSession(ctx, ids[0])
}

// EndSession ends the session with id (a viewer's current session) and
// announces it, so every replica closes the sockets it authenticated.
func (s *Service) EndSession(ctx context.Context, id int64) (bool, error) {
	res, err := s.deps.DB.NewDelete().Model((*models.Session)(nil)).Where("id = ?", id).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("auth: unable to end session: %w", err)
	}
	s.viewers.dropSession(id)
	n, _ := res.RowsAffected()
	if n > 0 {
		s.announceSessionEnd(ctx, id)
	}
	return n > 0, nil
}

// Roles returns the roles of userID in a stable order.
func (s *Service) Roles(ctx context.Context, userID int64) ([]models.Role, error) {
	var rows []models.UserRole
	if err := s.deps.DB.NewSelect().Model(&rows).Where("user_id = ?", userID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("auth: unable to load roles: %w", err)
	}
	roles := make([]models.Role, 0, len(rows))
	for _, row := range rows {
		roles = append(roles, row.Role)
	}
	return sortRoles(roles), nil
}

// sortRoles returns roles without duplicates in the order of AllRoles.
func sortRoles(roles []models.Role) []models.Role {
	out := make([]models.Role, 0, len(roles))
	for _, r := range models.AllRoles {
		if slices.Contains(roles, r) {
			out = append(out, r)
		}
	}
	return out
}

// UserByEmail finds a user by email; NOT_FOUND when there is none.
func (s *Service) UserByEmail(ctx context.Context, email string) (*models.User, error) {
	user := new(models.User)
	err := s.deps.DB.NewSelect().Model(user).Where("email = ?", NormalizeEmail(email)).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, fault.E(fault.NotFound, "no account with this email")
	}
	if err != nil {
		return nil, fmt.Errorf("auth: unable to look up user: %w", err)
	}
	return user, nil
}
