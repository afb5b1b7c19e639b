package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/internal/syncbuf"
)

func TestLoadConfigDefaults(t *testing.T) {
	c, err := loadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 8000 || c.AccessTokenTTL != 15*time.Minute || c.RefreshTokenTTL != 60*24*time.Hour ||
		c.TokenIssuer != "actionkit" || c.JobsNamespace != "actionkit" || c.RateLimitMax != 300 ||
		c.RateLimitWindow != 5*time.Minute || c.AuthRateLimitMax != 10 || c.AuthRateLimitWindow != 15*time.Minute ||
		c.ShutdownTimeout != 30*time.Second || c.Env != "development" || c.TrustProxy || len(c.CORSOrigins) != 0 ||
		c.WorkerDeadAfter != 20*time.Second {
		t.Errorf("defaults: %+v", c)
	}
	if c.RateLimitIPv6Prefix != 64 || c.RateLimitSync != time.Second || c.PublicURL != "http://localhost:8000" ||
		c.publicOrigin() != "http://localhost:8000" || len(c.TrustedProxies) != 6 {
		t.Errorf("limiter defaults: %+v", c)
	}
	c2, err := loadConfig(func(k string) string {
		return map[string]string{"TRUSTED_PROXIES": "10.1.2.3/8, 2001:db8::7", "PUBLIC_URL": "HTTPS://Api.Example.com/app/"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c2.TrustedProxies) != "[10.0.0.0/8 2001:db8::7/128]" || c2.publicOrigin() != "https://api.example.com" {
		t.Errorf("limiter settings: %v %s", c2.TrustedProxies, c2.publicOrigin())
	}
	if strings.Join(c.Locales, ",") != "en,es,zh-TW" {
		t.Errorf("locales = %v", c.Locales)
	}
	if c.SMTP != nil || c.MailFrom != "actionkit <no-reply@localhost>" || c.PublicURL != "http://localhost:8000" ||
		c.PasswordResetURL != "http://localhost:8000/demo#reset={token}" || c.EmailVerifyURL != "http://localhost:8000/demo#verify={token}" ||
		c.PasswordResetTTL != 30*time.Minute || c.EmailVerifyTTL != 48*time.Hour || c.RequireVerifiedEmail {
		t.Errorf("mail defaults: %+v", c)
	}
	if c.Hashing.Queue != auth.DefaultQueue || c.staleHashWait {
		t.Errorf("hashing queue default: %d (stale wait %v)", c.Hashing.Queue, c.staleHashWait)
	}
	for v, want := range map[string]int{"0": -1, "1": 1, "500": 500} {
		c, err := loadConfig(func(k string) string { return map[string]string{"PASSWORD_HASH_QUEUE": v}[k] })
		if err != nil || c.Hashing.Queue != want {
			t.Errorf("PASSWORD_HASH_QUEUE=%s: hasher queue %v (%v), want %d", v, c.Hashing.Queue, err, want)
		}
	}
	if !c.generatedSecret || len(c.AccessTokenSecret) != 32 {
		t.Errorf("development generates a 32-byte secret: %v %d", c.generatedSecret, len(c.AccessTokenSecret))
	}
	if !c.generatedDataKey || c.DataKey == nil {
		t.Errorf("development without a secret makes a random data key: %v %v", c.generatedDataKey, c.DataKey)
	}
}

func TestDataEncryptionKey(t *testing.T) {
	const given = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	load := func(env map[string]string) *config {
		t.Helper()
		c, err := loadEnv(env)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := load(map[string]string{"ACCESS_TOKEN_SECRET": testSecret})
	b := load(map[string]string{"ACCESS_TOKEN_SECRET": testSecret})
	if a.generatedDataKey || a.DataKey.Fingerprint() != b.DataKey.Fingerprint() {
		t.Error("a development key does not follow ACCESS_TOKEN_SECRET across restarts")
	}
	g := load(map[string]string{"ACCESS_TOKEN_SECRET": testSecret, "DATA_ENCRYPTION_KEY": given})
	p := load(map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_SECRET": testSecret, "DATA_ENCRYPTION_KEY": given})
	if g.DataKey.Fingerprint() == a.DataKey.Fingerprint() || g.DataKey.Fingerprint() != p.DataKey.Fingerprint() {
		t.Error("a given DATA_ENCRYPTION_KEY is not the key used")
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "15m": 15 * time.Minute, "1h30m": 90 * time.Minute} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "1.5d", "-3d", "ten", "99999999d"} {
		if _, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) succeeded", bad)
		}
	}
}

// loadEnv loads the configuration of env, a variable unset when absent.
func loadEnv(env map[string]string) (*config, error) {
	return loadConfig(func(k string) string { return env[k] })
}

// configRefusal is an environment loadConfig must refuse, and what its
// error must name.
type configRefusal struct {
	name string
	env  map[string]string
	want []string
}

// checkRefusals loads each environment in a subtest: loading fails with
// an error that names every wanted setting and never repeats the
// 40-character test secret.
func checkRefusals(t *testing.T, cases []configRefusal) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadEnv(tc.env)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
			if strings.Contains(err.Error(), strings.Repeat("a", 40)) {
				t.Errorf("the error repeats the secret")
			}
		})
	}
}

func TestLoadConfigErrors(t *testing.T) {
	checkRefusals(t, []configRefusal{
		{"every bad value at once", map[string]string{"PORT": "70000", "APP_ENV": "staging", "ACCESS_TOKEN_EXPIRES_IN": "soon", "TRUST_PROXY": "maybe"},
			[]string{"PORT", "APP_ENV", "ACCESS_TOKEN_EXPIRES_IN", "TRUST_PROXY"}},
		{"production needs a real secret", map[string]string{"APP_ENV": "production"}, []string{"ACCESS_TOKEN_SECRET", "DATA_ENCRYPTION_KEY"}},
		{"production needs a data key", map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_SECRET": testSecret}, []string{"DATA_ENCRYPTION_KEY"}},
		{"a data key that is not 64 hex", map[string]string{"DATA_ENCRYPTION_KEY": strings.Repeat("a", 40)}, []string{"DATA_ENCRYPTION_KEY"}},
		{"production refuses a weak secret", map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_SECRET": strings.Repeat("a", 40)}, []string{"ACCESS_TOKEN_SECRET"}},
		{"production refuses cheap hashing", map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_SECRET": testSecret, "DATA_ENCRYPTION_KEY": testDataKey, "PASSWORD_HASH_MEMORY_KIB": "1024"}, []string{"PASSWORD_HASH_MEMORY_KIB"}},
		{"wildcard origin", map[string]string{"CORS_ORIGINS": "*"}, []string{"CORS_ORIGINS"}},
		{"origin with a path", map[string]string{"CORS_ORIGINS": "https://a.example/app"}, []string{"CORS_ORIGINS"}},
		{"database url scheme", map[string]string{"DATABASE_URL": "mysql://x/y"}, []string{"DATABASE_URL"}},
		{"zero window", map[string]string{"RATE_LIMIT_WINDOW": "0s"}, []string{"RATE_LIMIT_WINDOW"}},
		{"namespace with a colon", map[string]string{"JOBS_NAMESPACE": "a:b"}, []string{"JOBS_NAMESPACE"}},
		{"api version", map[string]string{"API_VERSION": "1"}, []string{"API_VERSION"}},
		{"dead worker threshold under two heartbeats", map[string]string{"WORKER_DEAD_AFTER": "5s"}, []string{"WORKER_DEAD_AFTER"}},
		{"limiter settings", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, nonsense", "RATE_LIMIT_IPV6_PREFIX": "129", "RATE_LIMIT_SYNC_INTERVAL": "5s", "PUBLIC_URL": "ftp://x"},
			[]string{"TRUSTED_PROXIES", "RATE_LIMIT_IPV6_PREFIX", "RATE_LIMIT_SYNC_INTERVAL", "PUBLIC_URL"}},
		{"public url without host", map[string]string{"PUBLIC_URL": "https://"}, []string{"PUBLIC_URL"}},
		{"mail settings, every bad one at once", map[string]string{"SMTP_URL": "http://mail", "MAIL_FROM": "nobody", "PUBLIC_URL": "ftp://x",
			"PASSWORD_RESET_URL": "https://x/reset", "EMAIL_VERIFY_URL": "x{token}", "PASSWORD_RESET_EXPIRES_IN": "0s", "EMAIL_VERIFY_EXPIRES_IN": "soon", "REQUIRE_VERIFIED_EMAIL": "perhaps"},
			[]string{"SMTP_URL", "MAIL_FROM", "PUBLIC_URL", "PASSWORD_RESET_URL", "EMAIL_VERIFY_URL", "PASSWORD_RESET_EXPIRES_IN", "EMAIL_VERIFY_EXPIRES_IN", "REQUIRE_VERIFIED_EMAIL"}},
		{"hashing queue", map[string]string{"PASSWORD_HASH_QUEUE": "-1"}, []string{"PASSWORD_HASH_QUEUE"}},
		{"hashing queue not a number", map[string]string{"PASSWORD_HASH_QUEUE": "lots"}, []string{"PASSWORD_HASH_QUEUE"}},
		{"insecure SMTP in production", map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_SECRET": testSecret, "DATA_ENCRYPTION_KEY": testDataKey, "SMTP_URL": "smtp://mail:25?insecure=true"}, []string{"SMTP_URL"}},
		{"second factor settings, every bad one at once", map[string]string{"MFA_ISSUER": "Acme:Corp", "MFA_TOTP_SKEW": "11",
			"MFA_CHALLENGE_EXPIRES_IN": "0s", "MFA_CHALLENGE_MAX_ATTEMPTS": "0", "REAUTH_MAX_AGE": "later"},
			[]string{"MFA_ISSUER", "MFA_TOTP_SKEW", "MFA_CHALLENGE_EXPIRES_IN", "MFA_CHALLENGE_MAX_ATTEMPTS", "REAUTH_MAX_AGE"}},
	})
	c, err := loadConfig(func(k string) string {
		return map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_SECRET": testSecret, "DATA_ENCRYPTION_KEY": testDataKey, "CORS_ORIGINS": "https://a.example, http://localhost:3000"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if !c.production() || c.ShutdownDrain != 5*time.Second || strings.Join(c.CORSOrigins, " ") != "https://a.example http://localhost:3000" {
		t.Errorf("production config: %+v", c)
	}
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		code int
		want string
	}{
		{[]string{"help"}, nil, 0, "usage: server"},
		{[]string{"frobnicate"}, nil, 2, `unknown command "frobnicate"`},
		{[]string{"api", "extra"}, nil, 2, "takes no arguments"},
		{[]string{"api"}, map[string]string{"PORT": "x"}, 2, "PORT"},
		{[]string{"admin"}, nil, 2, "usage: server admin create"},
		{[]string{"admin", "create", "--email", "nope", "--password", "Valid-Password-1"}, nil, 2, "--email"},
		{[]string{"admin", "create", "--email", "a@example.com", "--password", "short"}, nil, 2, "--password"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out syncbuf.Buffer
			code := run(context.Background(), &environment{args: tc.args, getenv: func(k string) string { return tc.env[k] }, stdout: &out, stderr: &out})
			if code != tc.code || !strings.Contains(out.String(), tc.want) {
				t.Errorf("exit %d, output %q; want %d and %q", code, out.String(), tc.code, tc.want)
			}
		})
	}
}

// The heap floor is on unless GOGC is set, even to Go's default.
func TestHeapFloorFollowsGOGC(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, true},
		{map[string]string{"GOGC": "100"}, false},
		{map[string]string{"GOGC": "off"}, false},
	} {
		c, err := loadConfigLookup(func(k string) string { return tc.env[k] },
			func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		if c.HeapFloor != tc.want {
			t.Errorf("%v: HeapFloor %v, want %v", tc.env, c.HeapFloor, tc.want)
		}
	}
}
