// Package sockettest runs the real npm socket.io-client (4.8, pinned in
// client/package-lock.json) from Go tests, so that socket servers are tested
// against the client that applications use.
//
// Start launches "node client/client.mjs" and sends it its configuration; the
// client connects, joins the configured rooms and reports each happening as
// one JSON line, which the Client keeps as a Message until a test takes it:
//
//	connect        {"type":"connect","id":...,"transport":"websocket"}
//	connect_error  {"type":"connect_error","message":"UNAUTHORIZED","data":{...}}
//	ack            {"type":"ack","cmd":"join","event":"join","room":"FEED","ack":{"ok":true}}
//	ack_timeout    {"type":"ack_timeout","cmd":"emit","event":"join"}  (no answer in 5 s)
//	event          {"type":"event","event":"POST_PUBLISHED","payload":{...},"args":[...],"at":<ms>}
//	disconnect     {"type":"disconnect","reason":"io server disconnect"}
//	error          {"type":"error","message":...}  (the client could not run a command)
//
// Tests drive it with Join, Leave, Emit (any JSON arguments, for malformed
// input) and Close, and observe it with Next, WaitFor and NoEvent. WaitFor
// always waits for something that will happen, bounded by its context;
// NoEvent is the one bounded wait whose expiry is the expected outcome.
// Reconnection is off, so every happening is reported once.
//
// The first Start in a process makes sure node_modules is installed: it runs
// "npm ci --no-audit --no-fund" in the client directory under a file lock
// (packages are tested in parallel processes), unless a marker inside
// node_modules shows it was installed from the current package-lock.json.
// Without node or npm the test is skipped, or fails when CI=true; a failing
// npm ci fails the test. The node process is ended when the test ends.
package sockettest
