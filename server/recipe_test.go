package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/sockettest"
)

// TestSocketClientRecipe runs the socket client recipe of docs/realtime.md
// (examples/socket-client/feed.mjs) against the real server.
func TestSocketClientRecipe(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("../examples/socket-client")
	if err != nil {
		t.Fatal(err)
	}
	sockettest.EnsureNodeModules(t, dir)
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	cmd := exec.Command("node", "feed.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTIONKIT_URL="+s.URL, "ACTIONKIT_TOKEN="+u.token)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	expect := func(what, substr string) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("the recipe ended before %s", what)
				}
				if strings.Contains(line, substr) {
					return
				}
			case <-timeout:
				t.Fatalf("the recipe never printed %s", what)
			}
		}
	}
	expect("its join acknowledgement", `{"joined":"FEED","ack":{"ok":true}}`)
	id := createPost(t, u, "Seen by the recipe")
	u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": id}, u.auth()...).want(t, 200, "")
	expect("the event", `"postId":"`+id+`"`)
	u.c.call(http.MethodPost, "/v1/users/logoutall", nil, u.auth()...).want(t, 200, "")
	expect("the disconnect", `"disconnected"`)
}
