package main

import (
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/datakey"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/queues"
	"github.com/actionkit/actionkit/ratelimit"
)

// config is the server's configuration, read from the environment.
type config struct {
	Env                 string
	Port                int
	DatabaseURL         string
	RedisURL            string
	AccessTokenSecret   []byte
	RefreshTokenSecret  string
	AccessTokenTTL      time.Duration
	RefreshTokenTTL     time.Duration
	TokenIssuer         string
	APIVersion          string
	JobsNamespace       string
	RateLimitMax        int
	RateLimitWindow     time.Duration
	AuthRateLimitMax    int
	AuthRateLimitWindow time.Duration
	TrustProxy          bool
	TrustedProxies      []netip.Prefix
	RateLimitIPv6Prefix int
	RateLimitSync       time.Duration
	PublicURL           string
	CORSOrigins         []string
	Locales             []string
	ShutdownTimeout     time.Duration
	ShutdownDrain       time.Duration
	LogLevel            slog.Level
	DBMaxConns          int
	WorkerConcurrency   int
	WorkerDeadAfter     time.Duration
	Hashing             auth.HasherConfig
	Sockets             bool
	PurgeSchedule       string
	ModerationBlocklist []string
	DemoEnabled         bool
	PprofAddr           string
	MetricsAddr         string
	// HeapFloor keeps the garbage collector's heap goal at heapFloor or
	// more: true unless GOGC is set.
	HeapFloor bool
	// Mail: SMTP is nil when SMTP_URL is unset.
	SMTP             *mail.SMTPConfig
	MailFrom         string
	PasswordResetURL string
	EmailVerifyURL   string
	// EmailChangeURL and EmailRevertURL are the links of an e-mail change
	// (to the new address) and of its revert (to the old one).
	EmailChangeURL, EmailRevertURL string
	// AccountDeletionGrace is how long a soft-deleted user is kept (and
	// can be restored by an admin) before the clock purges it for good.
	AccountDeletionGrace time.Duration
	PasswordResetTTL     time.Duration
	EmailVerifyTTL       time.Duration
	// EventsRetention is how long security events are kept.
	EventsRetention      time.Duration
	RequireVerifiedEmail bool
	MailRetryBackoff     time.Duration
	// DataKey encrypts the secrets the service must read back.
	DataKey *datakey.Key
	// AccessTokenAlg signs new access tokens: HS256, EdDSA or ES256.
	AccessTokenAlg string
	// SigningKeyRotation is the age at which a signing key is replaced;
	// SigningKeyReload how often each instance reloads the keys.
	SigningKeyRotation, SigningKeyReload time.Duration
	// OAuth configures the OAuth provider and the MCP endpoint.
	OAuth oauthConfig
	// MFA configures the second factor (the key is DataKey's), and
	// ReauthMaxAge how recent an authentication sensitive actions need.
	MFA          accounts.MFASettings
	ReauthMaxAge time.Duration
	// OIDC configures sign-in through identity providers.
	OIDC oidcSettings
	// InsecureHosts (OAUTH_INSECURE_HOSTS) are the hosts webhooks may reach
	// over http and on any address.
	InsecureHosts []string
	// WebAuthn is the relying party of passkeys; nil when passkeys are
	// off, for the reason in webauthnOff.
	WebAuthn    *accounts.WebAuthnSettings
	webauthnOff string
	// generatedSecret records that AccessTokenSecret was generated for this
	// process, so that start-up can warn about it; generatedDataKey the
	// same of DataKey.
	generatedSecret, generatedDataKey bool
	// staleHashWait records that PASSWORD_HASH_MAX_WAIT, no longer read,
	// is set, so that start-up can warn about it.
	staleHashWait bool
	// now is the clock of the whole process; nil means the system's. It
	// is not read from the environment: tests set it to move time.
	now func() time.Time
}

// hashQueue converts PASSWORD_HASH_QUEUE (0: no call waits) to the
// hasher's setting (0 there means the default, negative none).
func hashQueue(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

func (c *config) production() bool { return c.Env == "production" }

// publicOrigin is the origin (scheme and host) of PUBLIC_URL.
func (c *config) publicOrigin() string {
	u, err := url.Parse(c.PublicURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// loadConfig reads the configuration through getenv and reports every
// invalid value at once.
func loadConfig(getenv func(string) string) (*config, error) {
	return loadConfigLookup(getenv, nil)
}

// loadConfigLookup is loadConfig with lookupenv telling a variable set to
// "" (MCP_PATH= turns the MCP endpoint off) from an unset one.
func loadConfigLookup(getenv func(string) string, lookupenv func(string) (string, bool)) (*config, error) {
	p := &envParser{getenv: getenv, lookupenv: lookupenv}
	c := &config{
		Env:                 p.oneOf("APP_ENV", "development", "development", "test", "production"),
		Port:                p.integer("PORT", 8000, 0, 65535),
		DatabaseURL:         p.url("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/actionkit?sslmode=disable", "postgres", "postgresql"),
		RedisURL:            p.url("REDIS_URL", "redis://127.0.0.1:6379/0", "redis", "rediss"),
		RefreshTokenSecret:  getenv("REFRESH_TOKEN_SECRET"),
		AccessTokenTTL:      p.duration("ACCESS_TOKEN_EXPIRES_IN", 15*time.Minute),
		RefreshTokenTTL:     p.duration("REFRESH_TOKEN_EXPIRES_IN", 60*24*time.Hour),
		TokenIssuer:         p.str("TOKEN_ISSUER", "actionkit"),
		APIVersion:          p.match("API_VERSION", "v1", `^v[1-9][0-9]*$`),
		JobsNamespace:       p.match("JOBS_NAMESPACE", "actionkit", `^[A-Za-z0-9_.-]{1,64}$`),
		RateLimitMax:        p.integer("RATE_LIMIT_MAX", 300, 0, 1<<30),
		RateLimitWindow:     p.duration("RATE_LIMIT_WINDOW", 5*time.Minute),
		AuthRateLimitMax:    p.integer("AUTH_RATE_LIMIT_MAX", 10, 0, 1<<30),
		AuthRateLimitWindow: p.duration("AUTH_RATE_LIMIT_WINDOW", 15*time.Minute),
		TrustProxy:          p.boolean("TRUST_PROXY", false),
		TrustedProxies:      p.prefixes("TRUSTED_PROXIES", framework.DefaultTrustedProxies),
		RateLimitIPv6Prefix: p.integer("RATE_LIMIT_IPV6_PREFIX", ratelimit.DefaultIPv6Prefix, 1, 128),
		RateLimitSync:       p.duration("RATE_LIMIT_SYNC_INTERVAL", ratelimit.DefaultSyncInterval),
		CORSOrigins:         p.origins("CORS_ORIGINS"),
		Locales:             p.list("LOCALES", "en,es,zh-TW"),
		ShutdownTimeout:     p.duration("SHUTDOWN_TIMEOUT", 30*time.Second),
		LogLevel:            p.level("LOG_LEVEL", slog.LevelInfo),
		DBMaxConns:          p.integer("DB_MAX_CONNS", 8, 1, 1000),
		WorkerConcurrency:   p.integer("WORKER_CONCURRENCY", 4, 1, 1000),
	}
	c.Hashing = auth.HasherConfig{
		MemoryKiB:   uint32(p.integer("PASSWORD_HASH_MEMORY_KIB", auth.DefaultMemoryKiB, 1024, 1<<20)),
		Time:        uint32(p.integer("PASSWORD_HASH_ITERATIONS", auth.DefaultTime, 1, 64)),
		Threads:     auth.DefaultThreads,
		Concurrency: p.integer("PASSWORD_HASH_CONCURRENCY", runtime.NumCPU(), 1, 1024),
		Queue:       hashQueue(p.integer("PASSWORD_HASH_QUEUE", auth.DefaultQueue, 0, 1<<20)),
	}
	_, c.staleHashWait = p.raw("PASSWORD_HASH_MAX_WAIT")
	if c.production() && (c.Hashing.MemoryKiB < auth.DefaultMemoryKiB || c.Hashing.Time < auth.DefaultTime) {
		p.fail("PASSWORD_HASH_MEMORY_KIB/PASSWORD_HASH_ITERATIONS", "may not go below OWASP's baseline (19456 KiB, 2 iterations) in production")
	}
	c.WorkerDeadAfter = p.duration("WORKER_DEAD_AFTER", queues.DefaultDeadAfter)
	if c.WorkerDeadAfter < queues.MinDeadAfter {
		p.fail("WORKER_DEAD_AFTER", fmt.Sprintf("must be at least %v (two of the job library's 5 s heartbeats)", queues.MinDeadAfter))
	}
	c.Sockets = p.boolean("SOCKETS_ENABLED", true)
	c.PurgeSchedule = p.str("PURGE_SESSIONS_SCHEDULE", "0 */10 * * * *")
	c.EventsRetention = p.duration("SECURITY_EVENTS_RETENTION", 90*24*time.Hour)
	c.AccountDeletionGrace = p.duration("ACCOUNT_DELETION_GRACE", 30*24*time.Hour)
	for _, w := range strings.Split(p.str("MODERATION_BLOCKLIST", ""), ",") {
		if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
			c.ModerationBlocklist = append(c.ModerationBlocklist, w)
		}
	}
	if c.RateLimitSync > time.Second || c.RateLimitSync < 10*time.Millisecond {
		p.fail("RATE_LIMIT_SYNC_INTERVAL", "must be from 10ms to 1s")
	}
	c.PublicURL = p.publicURL("PUBLIC_URL", fmt.Sprintf("http://localhost:%d", c.Port))
	c.DemoEnabled = p.boolean("DEMO_ENABLED", !c.production())
	c.PprofAddr = p.str("PPROF_ADDR", "")
	_, gogc := p.lookup("GOGC")
	c.HeapFloor = !gogc
	c.MetricsAddr = p.str("METRICS_ADDR", "")
	drain := time.Duration(0)
	if c.Env == "production" {
		drain = 5 * time.Second
	}
	c.ShutdownDrain = p.durationOrZero("SHUTDOWN_DRAIN", drain)
	p.tokenConfig(c)
	p.mailConfig(c)
	p.mfaConfig(c)
	p.oidcConfig(c)
	p.webauthnConfig(c)
	p.webhooksConfig(c)
	p.oauthConfig(c)
	if c.ShutdownDrain >= c.ShutdownTimeout && p.getenv("SHUTDOWN_DRAIN") != "" {
		p.fail("SHUTDOWN_DRAIN", "must be shorter than SHUTDOWN_TIMEOUT")
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return c, nil
}

// mailConfig reads the mail settings.
func (p *envParser) mailConfig(c *config) {
	if v, ok := p.raw("SMTP_URL"); ok {
		sc, err := mail.ParseSMTPURL(v)
		switch {
		case err != nil:
			p.fail("SMTP_URL", err.Error())
		case sc.Insecure && c.production():
			p.fail("SMTP_URL", "may not set insecure=true in production")
		default:
			sc.RequireTLS = c.production() // no plaintext fallback for reset links
			c.SMTP = &sc
		}
	}
	c.MailFrom = p.str("MAIL_FROM", "actionkit <no-reply@localhost>")
	if _, err := netmail.ParseAddress(c.MailFrom); err != nil {
		p.fail("MAIL_FROM", "is not an address such as: actionkit <no-reply@example.com>")
	}
	base := strings.TrimSuffix(c.PublicURL, "/") // PUBLIC_URL, read before
	c.PasswordResetURL = p.link("PASSWORD_RESET_URL", base+"/demo#reset={token}")
	c.EmailVerifyURL = p.link("EMAIL_VERIFY_URL", base+"/demo#verify={token}")
	c.EmailChangeURL = p.link("EMAIL_CHANGE_URL", base+"/demo#email-change={token}")
	c.EmailRevertURL = p.link("EMAIL_REVERT_URL", base+"/demo#email-revert={token}")
	c.PasswordResetTTL = p.duration("PASSWORD_RESET_EXPIRES_IN", 30*time.Minute)
	c.EmailVerifyTTL = p.duration("EMAIL_VERIFY_EXPIRES_IN", 48*time.Hour)
	c.RequireVerifiedEmail = p.boolean("REQUIRE_VERIFIED_EMAIL", false)
	c.MailRetryBackoff = p.durationOrZero("MAIL_RETRY_BACKOFF", 30*time.Second)
}

// link reads a URL template holding {token} exactly once.
func (p *envParser) link(name, def string) string {
	v := p.str(name, def)
	u, err := url.Parse(strings.Replace(v, "{token}", "t", 1))
	if strings.Count(v, "{token}") != 1 || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.fail(name, "must be an http(s) URL containing {token} once")
	}
	return v
}

// envParser reads variables, collecting one error per invalid value.
type envParser struct {
	getenv func(string) string
	// lookupenv, when set, tells a variable set to "" from an unset one.
	lookupenv func(string) (string, bool)
	errs      []error
}

// lookup returns the value of name and whether it is set, even to "".
// Without lookupenv a variable is set when it is not blank.
func (p *envParser) lookup(name string) (string, bool) {
	if p.lookupenv != nil {
		return p.lookupenv(name)
	}
	return p.raw(name)
}

func (p *envParser) fail(name, why string) {
	p.errs = append(p.errs, fmt.Errorf("%s %s", name, why))
}

func (p *envParser) raw(name string) (string, bool) {
	v := strings.TrimSpace(p.getenv(name))
	return v, v != ""
}

func (p *envParser) str(name, def string) string {
	if v, ok := p.raw(name); ok {
		return v
	}
	return def
}

func (p *envParser) oneOf(name, def string, allowed ...string) string {
	v := p.str(name, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	p.fail(name, fmt.Sprintf("is %q; want one of %s", v, strings.Join(allowed, ", ")))
	return def
}

func (p *envParser) match(name, def, pattern string) string {
	v := p.str(name, def)
	if !regexp.MustCompile(pattern).MatchString(v) {
		p.fail(name, fmt.Sprintf("is %q; want a value matching %s", v, pattern))
	}
	return v
}

func (p *envParser) integer(name string, def, lo, hi int) int {
	v, ok := p.raw(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		p.fail(name, fmt.Sprintf("is %q; want an integer from %d to %d", v, lo, hi))
		return def
	}
	return n
}

func (p *envParser) boolean(name string, def bool) bool {
	v, ok := p.raw(name)
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(name, fmt.Sprintf("is %q; want true or false", v))
		return def
	}
	return b
}

func (p *envParser) duration(name string, def time.Duration) time.Duration {
	d := p.durationOrZero(name, def)
	if d <= 0 {
		p.fail(name, "must be a positive duration")
		return def
	}
	return d
}

func (p *envParser) durationOrZero(name string, def time.Duration) time.Duration {
	v, ok := p.raw(name)
	if !ok {
		return def
	}
	d, err := parseDuration(v)
	if err != nil || d < 0 {
		p.fail(name, fmt.Sprintf("is %q; want a duration such as 90s, 15m, 12h, 60d or 2w", v))
		return def
	}
	return d
}

var daysRe = regexp.MustCompile(`^([0-9]+)([dw])$`)

// parseDuration accepts Go durations and whole days or weeks ("60d", "2w").
func parseDuration(s string) (time.Duration, error) {
	if m := daysRe.FindStringSubmatch(s); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n > 100000 {
			return 0, fmt.Errorf("duration %q is too long", s)
		}
		unit := 24 * time.Hour
		if m[2] == "w" {
			unit *= 7
		}
		return time.Duration(n) * unit, nil
	}
	return time.ParseDuration(s)
}

func (p *envParser) url(name, def string, schemes ...string) string {
	v := p.str(name, def)
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		p.fail(name, "is not a URL with a host")
		return v
	}
	for _, s := range schemes {
		if u.Scheme == s {
			return v
		}
	}
	p.fail(name, fmt.Sprintf("has scheme %q; want %s", u.Scheme, strings.Join(schemes, " or ")))
	return v
}

func (p *envParser) list(name, def string) []string {
	var out []string
	for _, s := range strings.Split(p.str(name, def), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		p.fail(name, "lists nothing")
	}
	return out
}

func (p *envParser) origins(name string) []string {
	v, ok := p.raw(name)
	if !ok {
		return nil
	}
	var out []string
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimSpace(o)
		u, err := url.Parse(o)
		if o == "" {
			continue
		}
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			p.fail(name, fmt.Sprintf("has %q; want origins such as https://app.example.com (no wildcard)", o))
			continue
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	return out
}

// prefixes reads a comma list of CIDRs (a bare address is its own /32 or
// /128).
func (p *envParser) prefixes(name string, def []netip.Prefix) []netip.Prefix {
	v, ok := p.raw(name)
	if !ok {
		return def
	}
	var out []netip.Prefix
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		pf, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				p.fail(name, fmt.Sprintf("has %q; want CIDRs such as 10.0.0.0/8 or fd00::/8", s))
				continue
			}
			pf = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, pf.Masked())
	}
	if len(out) == 0 {
		p.fail(name, "lists nothing")
	}
	return out
}

// publicURL reads the URL the service is reached at: http or https with a
// host.
func (p *envParser) publicURL(name, def string) string {
	v := p.str(name, def)
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		p.fail(name, fmt.Sprintf("is %q; want an http or https URL such as https://api.example.com", v))
		return def
	}
	return v
}

func (p *envParser) level(name string, def slog.Level) slog.Level {
	v, ok := p.raw(name)
	if !ok {
		return def
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		p.fail(name, fmt.Sprintf("is %q; want debug, info, warn or error", v))
		return def
	}
	return l
}
