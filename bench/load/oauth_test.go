package main

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

func TestOAuthSettings(t *testing.T) {
	env := oauthSettings([]string{"APP_ENV=production", "ACCESS_TOKEN_ALG=HS256", "RATE_LIMIT_MAX=9", "PUBLIC_URL=https://x.example"}, 4242)
	want := map[string]string{"APP_ENV": "test", "OAUTH_PROVIDER": "true", "ACCESS_TOKEN_ALG": "EdDSA",
		"PUBLIC_URL": "http://127.0.0.1:4242", "RATE_LIMIT_MAX": "9", "DEMO_ENABLED": "false",
		"OAUTH_INTERACTION_URL": "http://127.0.0.1:4242/signin"}
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("%s set twice in %v", k, env)
		}
		got[k] = v
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestPKCEPair(t *testing.T) {
	v, c := pkcePair()
	sum := sha256.Sum256([]byte(v))
	if len(v) != 43 || c != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Errorf("verifier %q challenge %q", v, c)
	}
	if v2, _ := pkcePair(); v2 == v {
		t.Error("the same verifier twice")
	}
}

func TestParsePlanOAuth(t *testing.T) {
	steps, err := parsePlan("read:64 oauthcode:16,64 oauthrefresh:64")
	if err != nil || len(steps) != 4 || steps[1] != (step{"oauthcode", 16}) || steps[3] != (step{"oauthrefresh", 64}) {
		t.Fatalf("%v %v", steps, err)
	}
	if _, err := parsePlan("oauthfoo:64"); err == nil {
		t.Error("an unknown OAuth scenario was accepted")
	}
}

// TestOAuthReport renders the token endpoint's runs: their tables with
// the baselines' ratios, the comparison with the first-party refresh, the
// provider series and the targets.
func TestOAuthReport(t *testing.T) {
	meta, runs := sampleRuns()
	meta.OAuthCodes, meta.ProviderSlices = 4000, 6
	lat := Latency{Count: 10, P50: 10, P90: 20, P99: 42, Max: 90}
	runs = append(runs,
		&Result{Kind: "run", Scenario: "oauthcode", Target: "server", Concurrency: 64, OpsPerSec: 400, ReqPerSec: 400, Latency: lat,
			Checks: []Check{{Name: "codes obtained through the real flow", OK: true, Detail: "4000 codes"}}},
		&Result{Kind: "run", Scenario: "oauthrefresh", Target: "server", Concurrency: 16, OpsPerSec: 500, ReqPerSec: 500, Latency: lat},
		&Result{Kind: "run", Scenario: "read", Target: "server", Series: "provider", Provider: "off", Concurrency: 64, ReqPerSec: 8000, Latency: lat},
		&Result{Kind: "run", Scenario: "read", Target: "server", Series: "provider", Provider: "on", Concurrency: 64, ReqPerSec: 7840, Latency: lat},
	)
	md := renderMarkdown(meta, runs)
	for _, want := range []string{
		"## The token endpoint: OAuth code exchange and refresh",
		"### oauthcode: POST /oauth2/token, grant_type authorization_code",
		"| 64 | 400 | 400 | 10.0 ms | 20.0 ms | 42.0 ms | 90.0 ms | 0 | 0 | n/a | n/a | n/a | n/a | n/a | 1% | 4% | n/a |",
		"### oauthrefresh: POST /oauth2/token, grant_type refresh_token",
		"- oauthrefresh at c=16: 500 req/s, p99 42.0 ms; first-party refresh at c=16: 2,000 req/s, p99 5.00 ms: 25% of its rate",
		"Provider on / off: **0.98** (7,840 / 8,000 req/s).\n",
		"differ only in OAUTH_PROVIDER",
		"| read with the OAuth provider on: ≥ 95% of off (alternating slices) | 98% (7,840/s of 8,000) | yes |",
		"| oauthcode, oauthrefresh: zero errors, every OAuth chain refreshes once more | 0 errors; checks ok | yes |",
		"at most 4,000 codes",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if read := md[strings.Index(md, "## read:"):]; strings.Contains(read[:strings.Index(read[3:], "\n## ")], "7,840") {
		t.Error("the provider series leaked into the read's table")
	}
	meta2, runs2 := sampleRuns()
	if md := renderMarkdown(meta2, runs2); strings.Contains(md, "## The token endpoint") ||
		!strings.Contains(md, "| read with the OAuth provider on | not measured | **no** |") {
		t.Error("a bench without OAuth runs: a section, or no \"not measured\" target")
	}
}
