package events

import (
	"context"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/google/uuid"
)

// Rooms. Clients join FEED and GLOBAL by sending "join"; every socket is in
// its own user's room from the moment it connects.
const (
	// RoomGlobal is the room for announcements to everyone who joined it.
	RoomGlobal = "GLOBAL"
	// RoomFeed is the room of clients interested in feed updates.
	RoomFeed = "FEED"
	// RoomTest is the prefix of the rooms reserved for tests; sockets may
	// join them only when the server allows test rooms (not in production).
	RoomTest = "TEST"
	// UserRoomPrefix starts the name of a user's room: "USER" then the id.
	UserRoomPrefix = "USER"
)

// Events.
const (
	// PostPublished is emitted to RoomFeed after a post was published; its
	// payload is a PostPublishedPayload.
	PostPublished = "POST_PUBLISHED"
	// TestSocketEventOne is reserved for tests.
	TestSocketEventOne = "TEST_SOCKET_EVENT_ONE"
	// TestSocketEventTwo is reserved for tests.
	TestSocketEventTwo = "TEST_SOCKET_EVENT_TWO"
)

// UserOwner is the only owner type that may open a socket.
const UserOwner action.OwnerType = "user"

// UserRoom returns the room of the user with id: "USER" followed by the id,
// such as "USER0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b".
func UserRoom(id uuid.UUID) string { return UserRoomPrefix + id.String() }

// ownerRoom is a room every socket of the user is put in on connect and can
// neither join nor leave: DisconnectUser targets it as well as UserRoom, so a
// client that left its own USER room is still disconnected on revocation.
func ownerRoom(id uuid.UUID) string { return "#owner:" + id.String() }

// sessionRoom is the room of the sockets opened with access tokens of one
// session (a login): DisconnectSessions targets it. Like ownerRoom it can be
// neither joined nor left by a client ("#" starts no room a client may name).
func sessionRoom(sid uuid.UUID) string { return "#sid:" + sid.String() }

// PostPublishedPayload is the payload of PostPublished.
type PostPublishedPayload struct {
	// PostID is the published post's id.
	PostID uuid.UUID `json:"postId"`
	// Title is the post's title.
	Title string `json:"title"`
	// PublishedAt is when the post was published; it is sent as RFC 3339
	// with up to nanoseconds ("2025-03-01T12:00:00.123Z").
	PublishedAt time.Time `json:"publishedAt"`
}

// Emitter sends events to the sockets in a room and disconnects users, on
// every server instance. Callers emit only after their transaction
// committed, and log a returned error rather than fail: a missed real-time
// event must not undo the work it announces.
type Emitter interface {
	// Emit sends event with payload, encoded as JSON, to the sockets in
	// room.
	Emit(ctx context.Context, room, event string, payload any) error
	// DisconnectUser disconnects every socket of the owner with id. Only
	// UserOwner has sockets; other owner types are a no-op.
	DisconnectUser(ctx context.Context, owner action.OwnerType, id uuid.UUID) error
	// DisconnectSessions disconnects the sockets opened in the given
	// sessions of an owner of type owner, and no other. Only UserOwner has
	// sockets; other owner types are a no-op.
	DisconnectSessions(ctx context.Context, owner action.OwnerType, sessions ...uuid.UUID) error
}

// Noop is the Emitter used when no socket server runs: it sends nothing and
// never fails.
type Noop struct{}

// Emit does nothing.
func (Noop) Emit(context.Context, string, string, any) error { return nil }

// DisconnectUser does nothing.
func (Noop) DisconnectUser(context.Context, action.OwnerType, uuid.UUID) error { return nil }

// DisconnectSessions does nothing.
func (Noop) DisconnectSessions(context.Context, action.OwnerType, ...uuid.UUID) error { return nil }

var (
	_ Emitter = Noop{}
	_ Emitter = (*RedisEmitter)(nil)
	_ Emitter = (*Server)(nil)
)
