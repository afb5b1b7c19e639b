package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/gomodule/redigo/redis"
	"github.com/jmoiron/sqlx"
	goredis "github.com/redis/go-redis/v9"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/events"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/oauthserver"
	"github.com/actionkit/actionkit/oauthserver/clients"
	"github.com/actionkit/actionkit/posts"
	"github.com/actionkit/actionkit/queues"
	"github.com/actionkit/actionkit/signingkeys"
	"github.com/actionkit/actionkit/webhooks"
)

// The process roles.
const (
	roleAPI    = "api"
	roleWorker = "worker"
	roleClock  = "clock"
)

// errForcedShutdown reports that SHUTDOWN_TIMEOUT ran out before every
// role had stopped.
var errForcedShutdown = errors.New("shutdown timed out")

// app holds the process's shared dependencies. It is the composition root:
// every store, service and action is built from it.
type app struct {
	cfg      *config
	log      *slog.Logger
	db       *sqlx.DB
	redis    *redis.Pool
	catalog  *errorcodes.Catalog
	tokens   *auth.Tokens
	keys     *signingkeys.Ring // nil without a database
	hasher   *auth.Hasher
	metrics  *metrics
	draining atomic.Bool
	now      func() time.Time
	users    *accounts.Service
	admins   *accounts.Service
	// userRooms and adminRooms are the types built on each engine.
	userRooms, adminRooms *rooms
	// federation signs users in through identity providers.
	federation *accounts.Federation
	// webauthn is the relying party of passkeys, nil when they are off.
	webauthn *webauthn.WebAuthn
	posts    *posts.Service
	rc       *goredis.Client
	emitter  events.Emitter
	mailer   *mail.Mailer
	// socketSweep is the period of the socket session sweep; zero means
	// events.DefaultSessionSweep. Tests shorten it.
	socketSweep time.Duration
	// webhooks keeps the webhooks and sends their deliveries; webhookPoll
	// is how often a worker looks for due ones (zero: defaultWebhookPoll).
	webhooks    *webhooks.Service
	webhookPoll time.Duration
	// oauth wires the OAuth provider and its clients (server/oauth.go).
	oauth *oauthProvider
}

// openApp connects to PostgreSQL (creating the database if it is missing),
// applies migrations under an advisory lock, and composes the process with
// compose. Redis is dialled lazily: a Redis outage at start only makes
// /ready fail.
func openApp(ctx context.Context, cfg *config, log *slog.Logger) (*app, error) {
	if cfg.generatedSecret {
		log.Warn("ACCESS_TOKEN_SECRET is not set: using a random secret for this process; its tokens die with it")
	}
	if cfg.generatedDataKey {
		log.Warn("DATA_ENCRYPTION_KEY is not set: using a random key for this process; what it encrypts cannot be read after a restart")
	}
	if cfg.staleHashWait {
		log.Warn("PASSWORD_HASH_MAX_WAIT is no longer read: a hash waits in a queue bounded by PASSWORD_HASH_QUEUE")
	}
	if cfg.WebAuthn == nil {
		log.Warn("passkeys are off: " + cfg.webauthnOff)
	} else {
		log.Info("passkeys", "rpId", cfg.WebAuthn.RPID, "origins", strings.Join(append(cfg.WebAuthn.Origins, cfg.WebAuthn.AppOrigins...), ","))
	}
	if cfg.SMTP == nil && cfg.production() {
		log.Warn("SMTP_URL is not set: no mail can be sent; password reset and e-mail verification requests answer 503")
	}
	if err := models.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	db, err := models.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if err := models.Migrate(ctx, db.DB); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrations: %w", err)
	}
	a, err := compose(cfg, log, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	return a, nil
}

// errorCodes lists every code the server answers: the framework's, then
// those of the account and publishing engines. NewCatalog refuses two of
// one ID or key.
func errorCodes() []errorcodes.Code {
	codes := errorcodes.Framework()
	codes = append(codes, accounts.ErrorCodes()...)
	codes = append(codes, posts.ErrorCodes()...)
	codes = append(codes, accounts.LaterErrorCodes()...)
	codes = append(codes, webhooks.ErrorCodes()...)
	codes = append(codes, accounts.LifecycleErrorCodes()...)
	codes = append(codes, clients.ErrorCodes()...)
	codes = append(codes, oauthserver.ErrorCodes()...)
	return append(codes, errorcodes.Later()...)
}

// newCatalog is the message catalog of every code of errorCodes in
// locales, from the messages of each package that declares codes.
func newCatalog(locales []string) (*errorcodes.Catalog, error) {
	return errorcodes.NewCatalog(locales, errorCodes(), accounts.Messages(), posts.Messages(), webhooks.Messages(),
		clients.Messages(), oauthserver.Messages())
}

// compose builds every part of the process from cfg and the database pool
// (nil: none, for a test that only describes the actions), eagerly and in
// this one place: the catalog, the token and password machinery, the Redis
// clients (which connect lazily), the emitter, the mailer, and the account
// and posts engines. Every role and action takes its parts from the app.
func compose(cfg *config, log *slog.Logger, db *sqlx.DB) (*app, error) {
	catalog, err := newCatalog(cfg.Locales)
	if err != nil {
		return nil, fmt.Errorf("LOCALES: %w", err)
	}
	templates, err := mail.NewTemplates(cfg.Locales)
	if err != nil {
		return nil, fmt.Errorf("LOCALES: %w", err)
	}
	now := cfg.now
	if now == nil {
		now = func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
	}
	keys, tokens, err := newTokens(cfg, log, db, now)
	if err != nil {
		return nil, err
	}
	rc, err := newRedisClient(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	a := &app{
		cfg:     cfg,
		log:     log,
		db:      db,
		rc:      rc,
		redis:   newRedisPool(cfg.RedisURL),
		catalog: catalog,
		tokens:  tokens,
		keys:    keys,
		hasher:  auth.NewHasher(cfg.Hashing),
		metrics: newMetrics(),
		now:     now,
	}
	a.metrics.watchHashing(a.hasher.Stats)
	a.emitter = newEmitter(rc, a.socketKey())
	a.mailer = &mail.Mailer{Templates: templates, Pool: a.redis, Prefix: cfg.JobsNamespace,
		Enqueuer: queues.NewEnqueuer(a.redis, cfg.JobsNamespace), Now: a.now, Log: log}
	switch {
	case cfg.SMTP != nil:
		a.mailer.Sender = &mail.SMTPSender{Config: *cfg.SMTP, From: cfg.MailFrom}
	case !cfg.production():
		a.mailer.Sender = mail.LogSender{Log: log}
	}
	if cfg.WebAuthn != nil {
		if a.webauthn, err = accounts.NewRelyingParty(*cfg.WebAuthn); err != nil {
			return nil, fmt.Errorf("WEBAUTHN_RP_ID, WEBAUTHN_ORIGINS: %w", err)
		}
	}
	a.users = a.newAccounts(accounts.Users)
	a.admins = a.newAccounts(accounts.Admins)
	a.userRooms, a.adminRooms = newRooms(a.users, a.webauthn), newRooms(a.admins, a.webauthn)
	a.federation = a.newFederation()
	a.posts = a.newPosts()
	a.webhooks = a.newWebhooks()
	a.oauth = newOAuthProvider(a)
	return a, nil
}

func (a *app) close() {
	if a.keys != nil {
		a.keys.Stop()
	}
	if err := a.rc.Close(); err != nil {
		a.log.Warn("closing redis client", "error", err)
	}
	if err := a.redis.Close(); err != nil {
		a.log.Warn("closing redis pool", "error", err)
	}
	if a.db == nil {
		return
	}
	if err := a.db.Close(); err != nil {
		a.log.Warn("closing database pool", "error", err)
	}
}

func newRedisPool(url string) *redis.Pool {
	return &redis.Pool{
		MaxIdle:     32,
		IdleTimeout: 4 * time.Minute,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialURLContext(ctx, url,
				redis.DialConnectTimeout(2*time.Second),
				redis.DialReadTimeout(5*time.Second),
				redis.DialWriteTimeout(5*time.Second))
		},
		TestOnBorrow: func(c redis.Conn, idleSince time.Time) error {
			if time.Since(idleSince) < time.Minute {
				return nil
			}
			_, err := c.Do("PING")
			return err
		},
	}
}

// newRedisClient returns the go-redis client of the socket.io adapter and
// emitter; it connects lazily.
func newRedisClient(url string) (*goredis.Client, error) {
	opts, err := goredis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opts.DialTimeout = 2 * time.Second
	return goredis.NewClient(opts), nil
}

// pingRedis checks that Redis answers within ctx.
func pingRedis(ctx context.Context, pool *redis.Pool) error {
	conn, err := pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = redis.DoContext(conn, ctx, "PING")
	return err
}

// role is a long-running part of the process. run serves until ctx ends,
// then stops within the shutdown budget of stopCtx.
type role interface {
	run(ctx, stopCtx context.Context) error
}

// runRoles runs the named roles until ctx ends or one fails, then stops
// them all within SHUTDOWN_TIMEOUT.
func (a *app) runRoles(ctx context.Context, names []string, listening func(net.Addr)) error {
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	stopCtx, cancelStop := context.WithCancel(context.Background())
	defer cancelStop()
	go func() {
		<-runCtx.Done()
		a.draining.Store(true)
		t := time.AfterFunc(a.cfg.ShutdownTimeout, cancelStop)
		<-stopCtx.Done()
		t.Stop()
	}()
	roles := make([]role, 0, len(names))
	for _, name := range names {
		r, err := a.buildRole(name, listening)
		if err != nil {
			return err
		}
		roles = append(roles, r)
	}
	errs := make([]error, len(roles))
	var wg sync.WaitGroup
	for i, r := range roles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = r.run(runCtx, stopCtx); errs[i] != nil {
				cancelRun()
			}
		}()
	}
	wg.Wait()
	if stopCtx.Err() != nil && ctx.Err() != nil {
		return errForcedShutdown
	}
	return errors.Join(errs...)
}

func (a *app) buildRole(name string, listening func(net.Addr)) (role, error) {
	switch name {
	case roleAPI:
		return a.newAPI(listening)
	case roleWorker:
		return a.newWorker()
	case roleClock:
		return a.newClock()
	}
	return nil, fmt.Errorf("unknown role %q", name)
}
