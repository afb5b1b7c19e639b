// Package events names the real-time rooms and events and delivers them: a
// socket.io server (Server) for API processes, a Redis emitter
// (RedisEmitter) for processes without one (the worker), and Noop for when
// sockets are off. All three implement Emitter.
//
// # Sockets
//
// The Server speaks the socket.io v4 protocol (github.com/zishang520/socket.io
// servers/socket/v3 and servers/engine/v3, v3.0.6) at Path, "/socket.io/",
// over long-polling and websocket; the npm socket.io-client 4.8 is tested
// against it (internal/sockettest). Not the v2 line: its engine.io (v2.5.0)
// wrote only the first of several room broadcasts that reached a websocket
// together and dropped the others silently (docs/realtime.md).
//
//   - A client connects with auth {"token": "<user access token>"}. The token
//     is verified by ServerConfig.Verify (the same checks as an HTTP request,
//     token version included); a missing, malformed or refused token, or a
//     caller other than a user, fails with connect_error "UNAUTHORIZED" and
//     data {"error":"UNAUTHORIZED"}. If the token could not be checked
//     because a dependency is unreachable (the database is down) the message
//     is "SERVICE_UNAVAILABLE" instead, and "INTERNAL_SERVER_ERROR" for any
//     other failure, so that clients do not take an outage for a logout.
//   - The socket is then in the room USER<userId> (UserRoom) before the
//     client sees "connect".
//   - "join" and "leave" take a room name: FEED, GLOBAL, the socket's own
//     USER<id>, and, when ServerConfig.AllowTestRooms is set (never in
//     production), rooms starting with TEST. With an acknowledgement callback
//     the answer is {"ok":true} or {"ok":false,"error":"FORBIDDEN"}; a
//     missing or non-string room is FORBIDDEN. These messages are handled in
//     the order they arrive (an any-listener, see sockets.go). Other
//     messages are ignored.
//   - DisconnectUser closes the connections of every socket of a user, on
//     every instance. It also targets a room each socket joins on connect and
//     can never leave, so a client that left its USER room is not spared.
//   - A socket is bound to the session its token belongs to: it is
//     disconnected when that session's end reaches its room, when the
//     session's expiry comes (ServerConfig.SessionLive), and, should the
//     end's message have been lost, by the sweep: every SessionSweep (a
//     minute by default) each Server reads the sessions of all its sockets
//     in one ServerConfig.LiveSessions call and disconnects the sockets of
//     sessions that are no longer live, or whose owner's token version
//     changed.
//   - A websocket message or polling request over MaxMessageBytes (16 KiB)
//     closes that connection. Handler also cuts polling bodies of unknown
//     length at that size, which engine.io itself would read whole.
//
// # Fan-out through Redis
//
// With ServerConfig.Redis the Server uses the socket.io Redis adapter
// (github.com/zishang520/socket.io/adapters/redis/v3, namespace "/"), and a
// RedisEmitter with the same key reaches it. Nothing is stored in Redis; the
// pub/sub channels, for a key K such as "actionkit#socket.io", are:
//
//	K#/#<room>#      an emit to one room (the adapter PSUBSCRIBEs K#/#*)
//	K-request#/#     requests between servers, such as disconnecting a room
//	K-response#/#    and K-response#/#<server uid>#, their answers
//
// Every emit goes to one room, on that room's channel. The library's
// emitter would send an emit to several rooms or to everyone, and by
// default one to a room whose name is 20 characters long (a socket id's
// length), on the bare channel K#/#, which the adapter (v3.0.2) drops
// without a word; the RedisEmitter therefore always names the room's
// channel (TestEmitToRoomOfSocketIDLength).
//
// Server.Emit and Server.DisconnectUser publish like a RedisEmitter (the
// adapter then delivers to this instance's sockets too), because the
// adapter's own broadcast only reports Redis failures to a listener: this
// way a failure is returned to the caller. Every call is bounded by its
// context and DefaultEmitTimeout; callers log the error and carry on.
// Payloads are encoded to JSON and decoded to plain values before they are
// handed to the library, so that the msgpack used on the Redis hop cannot
// change their shape (a uuid.UUID would otherwise arrive as bytes).
//
// The adapter's subscription loops retry a failed read at once, a busy loop
// of millions of errors a second while Redis is unreachable; the Server
// paces them with a pause in its error listener, which they call, and logs
// at most one adapter error every 10 s. NewServer subscribes synchronously,
// so it waits up to about twice the client's ReadTimeout when Redis accepts
// connections but does not answer.
package events
