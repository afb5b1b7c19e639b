// Package webclient holds actionkit's browser client library and its demo
// page, embedded in the binary, and serves them.
//
// The client library is plain JavaScript modules with no build step:
//
//	/client/actionkit.js           createClient: login, register, logout, api, socket
//	/client/errors.js              ActionkitError
//	/client/mfa.js                 the second factor: MfaRequired, client.mfa, re-authentication
//	/client/session.js             the access token in memory, single-flight refresh across tabs
//	/client/live.js                socket.io with the current access token
//	/client/passkeys.js            passkeys: login, registration, second factor, re-authentication
//	/client/socket.io.esm.min.js   socket.io-client 4.8.1 (MIT), vendored from npm unchanged
//	/client/socket.io-client.LICENSE.txt  its license
//
// The demo page, on the same origin, uses it:
//
//	/demo             the page
//	/demo/demo.css    its styles
//	/demo/demo.js     its script
//	/demo/view.js     its rendering helpers
//	/demo/load.js     the classic script of both pages that shows a message
//	                  with a retry when a module fails to load
//	/demo/account.js, /demo/secondstep.js, /demo/twofactor.js, /demo/reauth.js
//	                  its account panels, a login's second step, the
//	                  two-factor panel and the re-authentication prompt
//	/admin            the admin console (with /admin/admin.js, /admin/webhooks.js, /admin/admin.css)
//
// Every asset is answered with its media type, a strong ETag (304 on a
// matching If-None-Match), a Cache-Control with a short lifetime
// (PageCache, AssetCache), X-Content-Type-Options:
// nosniff and the ContentSecurityPolicy below, which allows scripts and
// styles from the page's own origin only (no inline script or style) and
// network connections to that origin (fetch and socket.io's WebSocket).
//
// A server mounts each Asset for GET and HEAD at its Path:
//
//	for _, a := range append(webclient.Library(), webclient.Demo()...) {
//		mux.Handle("GET "+a.Path, a) // a GET pattern also matches HEAD
//	}
package webclient
