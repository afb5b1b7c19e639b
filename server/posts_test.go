package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/sockettest"
)

// quiet is the window in which an event that should not come would have
// arrived: a delivery on this machine takes milliseconds.
const quiet = 700 * time.Millisecond

func waitCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// createPost creates a draft post of u and returns its id.
func createPost(t testing.TB, u *registered, title string) string {
	t.Helper()
	r := u.c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": title, "body": "The body of " + title}, u.auth()...).want(t, 201, "")
	return r.obj("post")["id"].(string)
}

// connectSocket connects a socket.io client to the server at url with
// token and waits until it is connected.
func connectSocket(t testing.TB, url, token string) *sockettest.Client {
	t.Helper()
	c := sockettest.Start(t, url, token, sockettest.Options{})
	if _, err := c.WaitFor(waitCtx(t), "connect", nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// feedClient connects a socket.io client for u and joins FEED.
func feedClient(t testing.TB, s *testServer, u *registered) *sockettest.Client {
	t.Helper()
	c := sockettest.Start(t, s.URL, u.token, sockettest.Options{Rooms: []string{"FEED"}, Ack: true})
	ack, err := c.WaitFor(waitCtx(t), "ack", func(m sockettest.Message) bool { return m.Room == "FEED" })
	if err != nil {
		t.Fatalf("no ack for joining FEED: %v", err)
	}
	if string(ack.Ack) != `{"ok":true}` {
		t.Fatalf("join FEED ack = %s", ack.Ack)
	}
	return c
}

// published waits for the POST_PUBLISHED event of postID and returns its
// payload.
func published(t testing.TB, c *sockettest.Client, postID string) map[string]any {
	t.Helper()
	m, err := c.WaitFor(waitCtx(t), "event", func(m sockettest.Message) bool {
		return m.Event == "POST_PUBLISHED" && strings.Contains(string(m.Payload), postID)
	})
	if err != nil {
		t.Fatalf("no POST_PUBLISHED for %s: %v", postID, err)
	}
	var p map[string]any
	if err := json.Unmarshal(m.Payload, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCreatePost(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	bothMethods(t, func(t *testing.T, method string) {
		r := u.c.callArgs(method, "/v1/posts/create", map[string]any{"title": "  Hello  ", "body": "World"}, u.auth()...).want(t, 201, "")
		p := r.obj("post")
		keys := []string{}
		for k := range p {
			keys = append(keys, k)
		}
		if len(keys) != 8 || p["title"] != "Hello" || p["body"] != "World" || p["status"] != "draft" || p["publishedAt"] != nil || p["userId"] != u.id {
			t.Errorf("post = %v", p)
		}
		u.c.callArgs(method, "/v1/posts/create", map[string]any{"title": ""}, u.auth()...).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		u.c.callArgs(method, "/v1/posts/create", map[string]any{"title": strings.Repeat("t", 201)}, u.auth()...).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		u.c.callArgs(method, "/v1/posts/create", map[string]any{"title": "x"}).want(t, 401, "UNAUTHORIZED")
	})
}

func TestSocketAuthAndRooms(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	u := register(t, s.client(), "web")
	other := register(t, s.client(), "web")
	stale := register(t, s.client(), "web")
	sqlExec(t, db, `UPDATE users SET token_version = 1 WHERE id = $1`, stale.id)
	now := time.Now().Unix()
	expired := forge(map[string]any{"alg": "HS256", "typ": "JWT"}, map[string]any{"sub": u.id, "type": "user", "tokenVersion": 0,
		"iat": now - 2000, "exp": now - 1000, "iss": "actionkit", "aud": "user-web"}, []byte(testSecret))
	for name, token := range map[string]string{"garbage": "nope", "expired": expired, "stale": stale.token, "empty": ""} {
		t.Run("refused "+name, func(t *testing.T) {
			c := sockettest.Start(t, s.URL, token, sockettest.Options{})
			m, err := c.Next(waitCtx(t))
			if err != nil || m.Type != "connect_error" || m.Message != "UNAUTHORIZED" {
				t.Errorf("got %+v (%v), want connect_error UNAUTHORIZED", m, err)
			}
		})
	}
	t.Run("rooms", func(t *testing.T) {
		c := feedClient(t, s, u)
		for _, room := range []string{"USER" + other.id, "ADMIN", "GLOBAL", "USER" + u.id, "TEST_ROOM"} {
			c.Join(room)
		}
		want := map[string]string{"USER" + other.id: `{"error":"FORBIDDEN","ok":false}`, "ADMIN": `{"error":"FORBIDDEN","ok":false}`,
			"GLOBAL": `{"ok":true}`, "USER" + u.id: `{"ok":true}`, "TEST_ROOM": `{"ok":true}`}
		for room, ack := range want {
			m, err := c.WaitFor(waitCtx(t), "ack", func(m sockettest.Message) bool { return m.Room == room })
			if err != nil {
				t.Fatalf("no ack for %s: %v", room, err)
			}
			if got := normalizeJSON(t, m.Ack); got != ack {
				t.Errorf("join %s: ack %s, want %s", room, got, ack)
			}
		}
	})
}

func normalizeJSON(t testing.TB, raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestDirectPublish(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	stranger := register(t, s.client(), "web")
	feed := feedClient(t, s, u)
	bothMethods(t, func(t *testing.T, method string) {
		id := createPost(t, u, "Post via "+method)
		r := u.c.callArgs(method, "/v1/posts/publish", map[string]any{"postId": id}, u.auth()...).want(t, 200, "")
		post := r.obj("post")
		if post["status"] != "published" || post["publishedAt"] == nil || post["id"] != id {
			t.Fatalf("post = %v", post)
		}
		p := published(t, feed, id)
		if len(p) != 3 || p["postId"] != id || p["title"] != "Post via "+method || p["publishedAt"] != post["publishedAt"] {
			t.Errorf("payload = %v, post = %v", p, post)
		}
		// Publishing again answers the post unchanged and emits nothing.
		again := u.c.callArgs(method, "/v1/posts/publish", map[string]any{"postId": id}, u.auth()...).want(t, 200, "")
		if again.obj("post")["publishedAt"] != post["publishedAt"] {
			t.Errorf("a second publish changed publishedAt")
		}
		// A stranger's or an absent post is 404 and emits nothing.
		stranger.c.callArgs(method, "/v1/posts/publish", map[string]any{"postId": createPost(t, u, "not yours")}, stranger.auth()...).want(t, 404, "POST_NOT_FOUND")
		u.c.callArgs(method, "/v1/posts/publish", map[string]any{"postId": "0199a7a0-0000-7000-8000-000000000000"}, u.auth()...).want(t, 404, "POST_NOT_FOUND")
		feed.NoEvent(t, quiet, "POST_PUBLISHED")
	})
	t.Run("invalid arguments", func(t *testing.T) {
		for _, args := range []map[string]any{{}, {"postId": "nope"}, {"postId": "5b0a4a36-6a5d-4c6e-9d4e-2f4c1f0e8a11"}, {"postId": createPost(t, u, "x"), "async": "maybe"}} {
			u.c.call(http.MethodPost, "/v1/posts/publish", args, u.auth()...).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		}
		u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": createPost(t, u, "y")}).want(t, 401, "UNAUTHORIZED")
	})
}

func TestConcurrentPublishEmitsOnce(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	feed := feedClient(t, s, u)
	id := createPost(t, u, "Raced")
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := s.client().call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": id}, u.auth()...); r.Status != 200 {
				t.Errorf("publish answered %d", r.Status)
			}
		}()
	}
	wg.Wait()
	published(t, feed, id)
	feed.NoEvent(t, quiet, "POST_PUBLISHED")
}

func TestAsyncPublish(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "MODERATION_BLOCKLIST=forbidden"), "all")
	u := register(t, s.client(), "web")
	feed := feedClient(t, s, u)
	bothMethods(t, func(t *testing.T, method string) {
		id := createPost(t, u, "Later via "+method)
		args := map[string]any{"postId": id, "async": true}
		if method == http.MethodGet {
			args["async"] = "true"
		}
		r := u.c.callArgs(method, "/v1/posts/publish", args, u.auth()...).want(t, 202, "")
		if len(r.str("jobId")) != 24 || len(r.Body) != 3 {
			t.Errorf("202 body = %s", r.Raw)
		}
		p := published(t, feed, id)
		var status string
		if err := s.db().GetContext(t.Context(), &status, `SELECT status FROM posts WHERE id = $1`, id); err != nil || status != "published" || p["title"] != "Later via "+method {
			t.Errorf("status %q (%v), payload %v", status, err, p)
		}
	})
	t.Run("moderation refuses", func(t *testing.T) {
		id := createPost(t, u, "A forbidden word")
		u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": id, "async": true}, u.auth()...).want(t, 202, "")
		poll.Until(t, 20*time.Second, "moderation verdict", func() bool { return strings.Contains(s.logs.String(), "refused by moderation") })
		var status string
		if err := s.db().GetContext(t.Context(), &status, `SELECT status FROM posts WHERE id = $1`, id); err != nil || status != "draft" {
			t.Errorf("status = %q (%v), want draft", status, err)
		}
	})
	t.Run("absent or foreign post is refused before enqueuing", func(t *testing.T) {
		u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": "0199a7a0-0000-7000-8000-000000000000", "async": true}, u.auth()...).want(t, 404, "POST_NOT_FOUND")
	})
}

// TestPublishWithoutSockets: with the socket server disabled, or Redis
// down, the direct publish still answers 200 and the post is published.
func TestPublishWithoutSockets(t *testing.T) {
	t.Parallel()
	t.Run("socket server disabled", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, testEnv(t, "SOCKETS_ENABLED=false"), "api")
		u := register(t, s.client(), "web")
		id := createPost(t, u, "Quiet")
		r := u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": id}, u.auth()...).want(t, 200, "")
		if r.obj("post")["status"] != "published" {
			t.Errorf("post = %v", r.obj("post"))
		}
		if got := s.client().call(http.MethodGet, "/socket.io/?EIO=4&transport=polling", nil).Status; got != 404 {
			t.Errorf("socket.io answered %d with sockets disabled, want 404", got)
		}
	})
	t.Run("redis down", func(t *testing.T) {
		t.Parallel()
		env := testEnv(t)
		rd := newTCPProxy(t, hostOf(t, env["REDIS_URL"]))
		env["REDIS_URL"] = rd.replaceHost(env["REDIS_URL"])
		s := startServer(t, env, "api")
		u := register(t, s.client(), "web")
		id := createPost(t, u, "Unheard")
		rd.down()
		start := time.Now()
		u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": id}, u.auth()...).want(t, 200, "")
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("publish took %s with Redis down", took)
		}
		var status string
		if err := s.db().GetContext(t.Context(), &status, `SELECT status FROM posts WHERE id = $1`, id); err != nil || status != "published" {
			t.Errorf("status = %q (%v)", status, err)
		}
		if !strings.Contains(s.logs.String(), "post published but no event was emitted") {
			t.Errorf("the lost event was not logged")
		}
		rd.up()
	})
}

func TestLogoutAllDisconnectsSockets(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	c := feedClient(t, s, u)
	u.c.call(http.MethodPost, "/v1/users/logoutall", nil, u.auth()...).want(t, 200, "")
	if _, err := c.WaitFor(waitCtx(t), "disconnect", nil); err != nil {
		t.Fatalf("the socket stayed connected after logout-all: %v", err)
	}
}
