package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/dependency"
)

// The defaults of SlowDownConfig: a pair slows down after 5 consecutive
// failures, an account after 50 failures within an hour from all clients;
// the first delay is 1 s, doubling up to 15 minutes; a client that logged in
// to the account within 30 days is trusted; a pair's failures are forgotten
// a day after its last one (docs/security.md, Limits and abuse protection).
const (
	DefaultPairFailures    = 5
	DefaultAccountFailures = 50
	DefaultAccountWindow   = time.Hour
	DefaultFirstDelay      = time.Second
	DefaultMaxDelay        = 15 * time.Minute
	DefaultTrustFor        = 30 * 24 * time.Hour
	DefaultPairMemory      = 24 * time.Hour
)

// SlowDownConfig configures a SlowDown. Zero fields take the defaults.
type SlowDownConfig struct {
	// Pool is the Redis connection pool; nil disables the slow-down.
	Pool *redis.Pool
	// Prefix starts every Redis key, e.g. "actionkit:ratelimit:login:user:".
	Prefix string
	// Logger receives the degraded/recovered lines; nil discards them.
	Logger *slog.Logger
	// Now is the clock of every delay and window; nil means time.Now.
	Now func() time.Time
	// IPv6Prefix is the prefix length an IPv6 client is identified by.
	IPv6Prefix int
	// PairFailures is the number of consecutive failures of one (e-mail,
	// client) pair after which its attempts are slowed.
	PairFailures int
	// AccountFailures is the number of failures of one e-mail within
	// AccountWindow, from all clients, after which attempts of that e-mail
	// are slowed, except from trusted clients.
	AccountFailures int
	AccountWindow   time.Duration
	// FirstDelay is the wait after the failure that reaches a threshold;
	// each further failure doubles it, up to MaxDelay.
	FirstDelay time.Duration
	MaxDelay   time.Duration
	// TrustFor is how long a client (address or device) that logged in to
	// an account stays exempt from that account's slow-down.
	TrustFor time.Duration
	// PairMemory is how long a pair's consecutive failures are remembered
	// after its last failure.
	PairMemory time.Duration
	// Timeout bounds each Redis call; zero means 500ms.
	Timeout time.Duration
}

// SlowDown slows down password guessing against an account. It counts
// failed logins per (e-mail, client) pair and per e-mail over all clients;
// past a threshold, each further attempt must wait a delay that doubles
// with every failure, up to a cap.
//
// The counts live in Redis and change only in Lua scripts, so concurrent
// attempts on any number of instances see one count. An admitted attempt
// of a slowed pair or account claims its slot, so concurrent attempts wait
// for its outcome instead of being evaluated together. E-mails are
// lowercased and hashed in keys.
//
// A client that logged in to the account within TrustFor is trusted, by
// its address or by its device: an opaque random value the client keeps
// (a cookie, or an app's stored token) and presents with each attempt.
// Succeeded hands the device value out; only its hash is stored, per
// account, and each success extends the trust. A trusted client is never
// slowed by the account-wide count. A trusted device's pair is the device
// itself, not its address, so others' failures (even from its network)
// never slow it; only its own do.
//
// Trust comes in two kinds. A login that completed every factor it owed
// (Succeeded) trusts the client for passwords and for second factors. A
// proof of the password or the mailbox alone (Proved: a reset, a password
// change, a password re-authentication) trusts it for passwords only, and
// CheckFactor still counts its second factors against the account: whoever
// controls only the mailbox gains no unthrottled second-factor guesses.
//
// SlowDown fails open: when Redis is unavailable attempts are not slowed
// (the per-client auth limit still applies), and it logs once.
type SlowDown struct {
	cfg      SlowDownConfig
	log      *slog.Logger
	check    *redis.Script
	fail     *redis.Script
	success  *redis.Script
	degraded atomic.Bool
}

// NewSlowDown returns a SlowDown for cfg.
func NewSlowDown(cfg SlowDownConfig) *SlowDown {
	def := func(p *time.Duration, d time.Duration) {
		if *p <= 0 {
			*p = d
		}
	}
	if cfg.PairFailures <= 0 {
		cfg.PairFailures = DefaultPairFailures
	}
	if cfg.AccountFailures <= 0 {
		cfg.AccountFailures = DefaultAccountFailures
	}
	def(&cfg.AccountWindow, DefaultAccountWindow)
	def(&cfg.FirstDelay, DefaultFirstDelay)
	def(&cfg.MaxDelay, DefaultMaxDelay)
	def(&cfg.TrustFor, DefaultTrustFor)
	def(&cfg.PairMemory, DefaultPairMemory)
	def(&cfg.Timeout, 500*time.Millisecond)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &SlowDown{cfg: cfg, log: cfg.Logger,
		check:   redis.NewScript(slowKeys, slowLib+checkScript),
		fail:    redis.NewScript(slowKeys, slowLib+failScript),
		success: redis.NewScript(slowKeys, slowLib+successScript),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Wait reports how long a login attempt must wait before it may be
// evaluated: an attempt on email from the client at ip, presenting device
// ("" if none). Zero means at once, and the attempt then holds the slot
// until Failed or Succeeded (or until its delay passes).
func (s *SlowDown) Wait(ctx context.Context, email, ip, device string) time.Duration {
	ms, err := redis.Int64(s.run(ctx, s.check, email, ip, device, "", false))
	if err != nil || ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// CheckFactor is Wait for an attempt at a second factor. Only a client
// trusted by a completed login (Succeeded) skips the account's count.
// Unlike Wait it fails closed: when Redis cannot be asked it returns an
// error marked dependency.Unavailable instead of letting the attempt
// through, since only this check bounds guesses across challenges.
func (s *SlowDown) CheckFactor(ctx context.Context, email, ip, device string) (time.Duration, error) {
	reply, err := s.run(ctx, s.check, email, ip, device, "", true)
	if err != nil {
		return 0, dependency.Unavailable("redis", err)
	}
	ms, err := redis.Int64(reply, nil)
	if err != nil {
		return 0, dependency.Unavailable("redis", err)
	}
	return time.Duration(max(ms, 0)) * time.Millisecond, nil
}

// Failed records a failed attempt (wrong password or unknown e-mail).
func (s *SlowDown) Failed(ctx context.Context, email, ip, device string) {
	_, _ = s.run(ctx, s.fail, email, ip, device, "", false)
}

// Succeeded records a login that completed every factor it owed. The
// pair's failures are forgotten, and the account trusts the client's
// address and device for TrustFor, for passwords and second factors.
//
// It returns the device value the client should keep: device itself when
// the account trusts it already (its trust is extended), else a new random
// value, so that a value planted by someone else is never adopted. Without
// Redis it returns device if it is well formed, else a new value.
func (s *SlowDown) Succeeded(ctx context.Context, email, ip, device string) string {
	return s.succeeded(ctx, email, ip, device, true)
}

// Proved is Succeeded for a proof of the password or of the mailbox alone
// (a reset, a password change, a password re-authentication): the client
// is trusted for passwords only, and CheckFactor still counts its second
// factors against the account.
func (s *SlowDown) Proved(ctx context.Context, email, ip, device string) string {
	return s.succeeded(ctx, email, ip, device, false)
}

// succeeded is Succeeded (full) and Proved (not full).
func (s *SlowDown) succeeded(ctx context.Context, email, ip, device string, full bool) string {
	fresh := NewDevice()
	kept, err := redis.Int64(s.run(ctx, s.success, email, ip, device, fresh, full))
	if (err == nil && kept == 1) || (err != nil && WellFormedDevice(device)) {
		return device
	}
	return fresh
}

// accountKey starts the keys of the account of email.
func (s *SlowDown) accountKey(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return s.cfg.Prefix + "a:" + hex.EncodeToString(sum[:16]) + ":"
}

// run calls script for an attempt on email from ip presenting device, with
// fresh the device value Succeeded would hand out; factor marks a second
// factor's check, or a success that trusts for second factors.
func (s *SlowDown) run(ctx context.Context, script *redis.Script, email, ip, device, fresh string, factor bool) (any, error) {
	if s.cfg.Pool == nil {
		return int64(0), nil
	}
	c := s.cfg
	now := c.Now().UnixMilli()
	win := c.AccountWindow.Milliseconds()
	index := now / win
	frac := float64(now%win) / float64(win)
	acct := s.accountKey(email)
	client := ClientKey(ip, c.IPv6Prefix)
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	args := []any{
		acct + "p:" + client,
		acct + "n:" + strconv.FormatInt(index, 10),
		acct + "n:" + strconv.FormatInt(index-1, 10),
		acct + "next",
		acct + "t:" + client,
		acct + "p:d:" + deviceKey(device),
		acct + "d:" + deviceKey(device),
		acct + "d:" + deviceKey(fresh),
		acct + "mt:" + client,
		acct + "md:" + deviceKey(device),
		acct + "md:" + deviceKey(fresh),
		now, strconv.FormatFloat(frac, 'f', 6, 64),
		c.PairFailures, c.AccountFailures, ms(c.FirstDelay), ms(c.MaxDelay),
		ms(c.PairMemory), win, ms(c.TrustFor), flag(WellFormedDevice(device)), flag(factor),
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	reply, err := s.do(ctx, script, args)
	if err != nil {
		if !s.degraded.Swap(true) {
			s.log.Warn("ratelimit: redis unavailable, logins are not slowed down", "err", err)
		}
		return nil, err
	}
	if s.degraded.Swap(false) {
		s.log.Info("ratelimit: redis available again, login slow-down active")
	}
	return reply, nil
}

// do runs script with args on a connection whose every command has the
// configured timeout.
func (s *SlowDown) do(ctx context.Context, script *redis.Script, args []any) (any, error) {
	conn, err := s.cfg.Pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	timeout := s.cfg.Timeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	cwt, ok := conn.(redis.ConnWithTimeout)
	if !ok {
		return script.Do(conn, args...)
	}
	return script.Do(timeoutConn{cwt, timeout}, args...)
}

// timeoutConn runs every command of a script call with one timeout.
type timeoutConn struct {
	redis.ConnWithTimeout
	timeout time.Duration
}

func (c timeoutConn) Do(cmd string, args ...any) (any, error) {
	return c.DoWithTimeout(c.timeout, cmd, args...)
}
