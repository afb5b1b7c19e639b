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
	// TrustFor is how long a client that logged in to an account stays
	// exempt from that account's slow-down.
	TrustFor time.Duration
	// PairMemory is how long a pair's consecutive failures are remembered
	// after its last failure.
	PairMemory time.Duration
	// Timeout bounds each Redis call; zero means 500ms.
	Timeout time.Duration
}

// SlowDown slows password guessing against one account:
// failed logins are counted per (e-mail, client) and per e-mail over all
// clients, and past a threshold each further attempt must wait a delay
// that doubles with every failure, capped. State lives in Redis, updated by
// Lua scripts so concurrent attempts on any number of instances see one
// count; an admitted attempt of a slowed pair or account claims its slot,
// so concurrent attempts wait for its outcome instead of being evaluated
// together. E-mails are lowercased and hashed in keys.
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
		check:   redis.NewScript(5, slowLib+checkScript),
		fail:    redis.NewScript(5, slowLib+failScript),
		success: redis.NewScript(5, slowLib+successScript),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// The scripts share their keys and arguments:
//
//	KEYS: 1 pair hash {f: consecutive failures, n: next allowed ms},
//	      2 the e-mail's failures in the current account window,
//	      3 those of the previous window, 4 the e-mail's next allowed ms,
//	      5 the pair's trust marker
//	ARGV: 1 now ms, 2 elapsed part of the current window (0-1),
//	      3 pair threshold, 4 account threshold, 5 first delay ms,
//	      6 max delay ms, 7 pair memory ms, 8 account window ms,
//	      9 trust ms
//
// The account count slides: the previous window's failures weigh by the
// part of it still inside the last AccountWindow.
const slowLib = `
local now, frac = tonumber(ARGV[1]), tonumber(ARGV[2])
local pairMin, acctMin = tonumber(ARGV[3]), tonumber(ARGV[4])
local first, cap = tonumber(ARGV[5]), tonumber(ARGV[6])
local function delay(level)
	local d = first
	for i = 2, level do
		d = d * 2
		if d >= cap then return cap end
	end
	return math.min(d, cap)
end
local function account()
	local cur = tonumber(redis.call('GET', KEYS[2]) or '0')
	local prev = tonumber(redis.call('GET', KEYS[3]) or '0')
	return math.floor(cur + prev * (1 - frac))
end
`

// checkScript returns the wait in ms (0: go ahead) and claims the slot of
// an admitted attempt of a slowed pair or account.
const checkScript = `
local fails = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
local pnext = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if pnext > now then return pnext - now end
local trusted = redis.call('EXISTS', KEYS[5]) == 1
local acct = 0
if not trusted then
	acct = account()
	if acct >= acctMin then
		local anext = tonumber(redis.call('GET', KEYS[4]) or '0')
		if anext > now then return anext - now end
	end
end
if fails >= pairMin then
	redis.call('HSET', KEYS[1], 'n', now + delay(fails - pairMin + 1))
	redis.call('PEXPIRE', KEYS[1], ARGV[7])
end
if acct >= acctMin then
	redis.call('SET', KEYS[4], now + delay(acct - acctMin + 1), 'PX', ARGV[8])
end
return 0
`

// failScript counts a failure of the pair and of the e-mail.
const failScript = `
local fails = redis.call('HINCRBY', KEYS[1], 'f', 1)
if fails >= pairMin then
	redis.call('HSET', KEYS[1], 'n', now + delay(fails - pairMin + 1))
else
	redis.call('HSET', KEYS[1], 'n', 0)
end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], 2 * tonumber(ARGV[8]))
local acct = account()
if acct >= acctMin then
	redis.call('SET', KEYS[4], now + delay(acct - acctMin + 1), 'PX', ARGV[8])
end
return 0
`

// successScript resets the pair and trusts its client.
const successScript = `
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[5], '1', 'PX', ARGV[9])
return 0
`

// Wait reports how long an attempt to log in to email from the client at
// ip must wait before it may be evaluated; zero means now, and then the
// attempt holds the slot until Failed or Succeeded (or its delay passes).
func (s *SlowDown) Wait(ctx context.Context, email, ip string) time.Duration {
	ms, err := redis.Int64(s.run(ctx, s.check, email, ip))
	if err != nil || ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// Failed records a failed attempt (wrong password or unknown e-mail).
func (s *SlowDown) Failed(ctx context.Context, email, ip string) {
	_, _ = s.run(ctx, s.fail, email, ip)
}

// Succeeded records a successful login: the pair's failures are forgotten
// and its client is trusted by the account for TrustFor.
func (s *SlowDown) Succeeded(ctx context.Context, email, ip string) {
	_, _ = s.run(ctx, s.success, email, ip)
}

func (s *SlowDown) run(ctx context.Context, script *redis.Script, email, ip string) (any, error) {
	if s.cfg.Pool == nil {
		return int64(0), nil
	}
	c := s.cfg
	now := c.Now().UnixMilli()
	win := c.AccountWindow.Milliseconds()
	index := now / win
	frac := float64(now%win) / float64(win)
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	acct := c.Prefix + "a:" + hex.EncodeToString(sum[:16]) + ":"
	client := ClientKey(ip, c.IPv6Prefix)
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	args := []any{
		acct + "p:" + client,
		acct + "n:" + strconv.FormatInt(index, 10),
		acct + "n:" + strconv.FormatInt(index-1, 10),
		acct + "next",
		acct + "t:" + client,
		now, strconv.FormatFloat(frac, 'f', 6, 64),
		c.PairFailures, c.AccountFailures, ms(c.FirstDelay), ms(c.MaxDelay),
		ms(c.PairMemory), win, ms(c.TrustFor),
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
