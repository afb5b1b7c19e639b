package main

import "fmt"

// The login's section holds the login in one step (password) and in two
// (password, then a TOTP code: scenario mfalogin).

// loginSteps name the two login scenarios in the login's table.
var loginSteps = map[string]string{"login": "password", "mfalogin": "password + TOTP"}

// inSection reports whether the runs of scenario belong to the section
// of name: the two-step login is in the login's.
func inSection(name, scenario string) bool {
	return scenario == name || name == "login" && scenario == "mfalogin"
}

// argonShare writes a rate as a share of the Argon2id bound, or "n/a".
func argonShare(rate, bound float64) string {
	if bound <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*rate/bound)
}

// twoStepNote explains the two-step rows, with their requests apart.
func (rp *report) twoStepNote() string {
	kinds := rp.kindsTable("mfalogin")
	if kinds == "" {
		return ""
	}
	return "\nWith TOTP (`mfalogin`): the users have TOTP on; the first step (`login`) answers 403 USER_FORBIDDEN_MFA_REQUIRED " +
		"with an mfaToken after the password hash, the second (`verify`, POST /v1/users/mfa/verify) takes a code the tool computes " +
		"from the user's secret and opens the session. An operation is both steps. The server accepts each 30-second step of a " +
		"secret once, so the virtual users share a pool of enrolled users (registered and enrolled before the run, sized from the " +
		"Argon2id bound), each taking the user whose last step lies furthest back. The check below compares the server's " +
		"`actionkit_password_hashes_total` over the run with the first steps: the second step hashes no password, so the two-step " +
		"login is bound by the same hashing as the one-step one." + rp.twoStepRatios() + "\n" + kinds
}

// twoStepRatios compares each two-step run with the one-step run at its
// concurrency.
func (rp *report) twoStepRatios() string {
	var out string
	for _, r := range rp.runs {
		one := rp.find("server", "login", r.Concurrency)
		if r.Target != "server" || r.Scenario != "mfalogin" || r.Series != "" || r.Error != "" || one == nil || one.OpsPerSec <= 0 {
			continue
		}
		out += fmt.Sprintf(" At %d: %s logins a second in two steps, %.2f × the one-step login's %s.", r.Concurrency,
			fmtRate(r.OpsPerSec), r.OpsPerSec/one.OpsPerSec, fmtRate(one.OpsPerSec))
	}
	return out
}

// twoStepTargets are the rows of the two-step login's target: its second
// step hashes no password.
func (rp *report) twoStepTargets() [][]string {
	r := rp.find("server", "mfalogin", 64)
	if r == nil {
		return [][]string{{"login with TOTP at 64", "not measured", "**no**"}}
	}
	var rows [][]string
	for _, c := range r.Checks {
		rows = append(rows, []string{"login with TOTP at 64: " + c.Name, c.Detail, yesNo(c.OK)})
	}
	return rows
}
