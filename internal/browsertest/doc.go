// Package browsertest runs browser scenarios of actionkit's web client from
// Go tests: headless Chromium from Debian's packages (/usr/bin/chromium,
// never a downloaded browser) driven by playwright-core (pinned in
// package-lock.json) from the node script run.mjs.
//
// Run starts "node run.mjs <scenario>" against a server's base URL and
// reads the JSON lines it prints: results, which Run returns, and
// checkpoints, at which the scenario waits until the test has looked at the
// server (its database, say) and answered through Options.Checkpoint.
//
//	res := browsertest.Run(t, baseURL, "race", browsertest.Options{
//		Checkpoint: func(m browsertest.Message) any { return countRotations(m.Data["userId"]) },
//	})
//	t.Logf("requests: %v", res["tabs"].Data["requests"])
//
// The first Run in a process installs node_modules with npm ci
// (sockettest.EnsureNodeModules). Without node, npm or Chromium the test is
// skipped, or fails when CI=true. The scenarios are in scenarios/*.mjs.
package browsertest
