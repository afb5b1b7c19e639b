package main

import (
	"fmt"
	"strings"
)

func init() {
	sectionTitles["oauthcode"] = "oauthcode: POST /oauth2/token, grant_type authorization_code (a code obtained through authorize + approve before the timed phase)"
	sectionTitles["oauthrefresh"] = "oauthrefresh: POST /oauth2/token, grant_type refresh_token, each virtual user rotating its own OAuth session's chain"
}

// oauthSection is the token endpoint's part of the report: the code
// exchange and the refresh grant on the OAuth server, each against the
// baselines and the first-party scenario nearest to it, and the read with
// the provider off and on.
func (rp *report) oauthSection() string {
	var parts []string
	for _, name := range oauthScenarioNames {
		if s := rp.httpSection(name); s != "" {
			parts = append(parts, strings.Replace(s, "## ", "### ", 1))
		}
	}
	provider := rp.providerTable()
	if parts == nil && provider == "" {
		return ""
	}
	out := "## The token endpoint: OAuth code exchange and refresh\n\n" +
		"On a second server started for these runs on the same database and Redis namespace with `OAUTH_PROVIDER=true`, " +
		"`ACCESS_TOKEN_ALG=EdDSA`, `PUBLIC_URL` its own address and `APP_ENV=test` (production wants an https `PUBLIC_URL`; " +
		"the bench speaks plain HTTP on loopback), the rest as the bench's server. The bench's server keeps its settings, so " +
		"the other scenarios and the baselines are unchanged. The client is a confidential admin client " +
		"(`client_secret_basic`, code and refresh grants, scope `" + oauthScope + "`, RS256 ID tokens, the default), written " +
		"into `oauth_clients` as the admin action does. Every answer must carry an access, a refresh and an ID token. " +
		"A code is single use and lives 60 s, so `oauthcode` first obtains " +
		fmt.Sprintf("at most %s codes (`-oauth-codes`, within 30 s)", fmtRate(float64(rp.meta.OAuthCodes))) +
		" through the real flow, each virtual user for its own user (GET /oauth2/authorize with PKCE S256, then " +
		"/v1/users/oauth/approve with the oauth-request cookie), unmeasured; the timed phase then only exchanges them, the " +
		"first during the warm-up, and its rate is over the codes exchanged in the measured window (bounded by the codes " +
		"prepared: the check says how many). Each exchange opens an OAuth session of the user. `oauthrefresh` signs each " +
		"virtual user in once the same way, then rotates that session's refresh token in a closed loop. The \"vs\" columns " +
		"divide by the baselines at the same concurrency, as for the other scenarios.\n\n" + strings.Join(parts, "")
	out += rp.oauthVsFirstParty()
	return out + provider
}

// oauthVsFirstParty compares the refresh grant with the first-party
// refresh (/v1/users/refresh) at the same concurrency.
func (rp *report) oauthVsFirstParty() string {
	var lines []string
	pairs := [][2]string{{"oauthrefresh", "refresh"}}
	for _, p := range pairs {
		for _, r := range rp.runs {
			if r.Target != "server" || r.Scenario != p[0] || r.Series != "" || r.Error != "" {
				continue
			}
			other := rp.find("server", p[1], r.Concurrency)
			if other == nil || other.ReqPerSec <= 0 {
				continue
			}
			lines = append(lines, fmt.Sprintf("- %s at c=%d: %s req/s, p99 %s; first-party %s at c=%d: %s req/s, p99 %s: %.0f%% of its rate",
				p[0], r.Concurrency, fmtRate(r.ReqPerSec), fmtMs(r.Latency.P99), p[1], other.Concurrency,
				fmtRate(other.ReqPerSec), fmtMs(other.Latency.P99), 100*r.ReqPerSec/other.ReqPerSec))
		}
	}
	if lines == nil {
		return ""
	}
	return "Against the first-party refresh in the same run (a rotation of a session's refresh token, without the ID token " +
		"and the client's authentication):\n\n" + strings.Join(lines, "\n") + "\n\n"
}

// providerTable is the read with the provider off and on, in alternating
// slices, and the plan's read at the same level.
func (rp *report) providerTable() string {
	var rows [][]string
	var notes []string
	for _, r := range rp.runs {
		if r.Series != "provider" {
			continue
		}
		if r.Error != "" {
			notes = append(notes, fmt.Sprintf("- provider %s: not measured: %s", r.Provider, r.Error))
			continue
		}
		rows = append(rows, []string{r.Provider, fmt.Sprint(r.Concurrency), fmtRate(r.ReqPerSec), fmtMs(r.Latency.P50),
			fmtMs(r.Latency.P99), fmt.Sprint(r.ErrorCount()), cpuCell(r.CPU)})
	}
	if rows == nil && notes == nil {
		return ""
	}
	out := "### The read with the provider off and on\n\n" + fmt.Sprintf("GET /v1/users/read by wrk on two servers that differ "+
		"only in OAUTH_PROVIDER (both with EdDSA access tokens, APP_ENV test and the demo off, on the same database and Redis "+
		"namespace, each reading users it registered itself): the OAuth server (provider on) and a twin started for this with "+
		"the provider off, in %d alternating slices each.\n\n", rp.meta.ProviderSlices) +
		table([]string{"provider", "concurrency", "req/s", "p50", "p99", "errors", "CPU server / tool / rest / steal"}, rows)
	if q, on, off, ok := providerRatio(rp.runs); ok {
		out += fmt.Sprintf("\nProvider on / off: **%.2f** (%s / %s req/s).", q, fmtRate(on), fmtRate(off))
		out += "\n"
	}
	if len(notes) > 0 {
		out += "\n" + strings.Join(notes, "\n") + "\n"
	}
	return out + "\n"
}

// oauthTargets are the rows of the token endpoint's targets: no error and
// no lost chain, and the read path losing nothing with the provider on.
func (rp *report) oauthTargets() [][]string {
	var rows [][]string
	var errs int64
	checks, seen := true, false
	for _, r := range rp.runs {
		if r.Target == "server" && isOAuthScenario(r.Scenario) && r.Series == "" {
			seen = true
			errs += r.ErrorCount()
			checks = checks && r.ChecksOK() && r.Error == ""
		}
	}
	if seen {
		rows = append(rows, []string{"oauthcode, oauthrefresh: zero errors, every OAuth chain refreshes once more",
			fmt.Sprintf("%d errors; checks %s", errs, okWord(checks)), yesNo(errs == 0 && checks)})
	} else {
		rows = append(rows, []string{"oauthcode, oauthrefresh", "not measured", "**no**"})
	}
	if q, on, off, ok := providerRatio(rp.runs); ok {
		rows = append(rows, []string{"read with the OAuth provider on: ≥ 95% of off (alternating slices)",
			fmt.Sprintf("%.0f%% (%s/s of %s)", 100*q, fmtRate(on), fmtRate(off)), yesNo(q >= 0.95)})
	} else {
		rows = append(rows, []string{"read with the OAuth provider on", "not measured", "**no**"})
	}
	return rows
}
