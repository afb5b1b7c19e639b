package v1_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/events"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/posts"
	"github.com/actionkit/actionkit/queues"
)

// TestPosts runs V1CreatePost and V1Publish on the real posts engine: a
// user's draft is created (201), published at once (200, the post) or by
// the job (202, its id, queued); another user's post or an unknown one is
// POST_NOT_FOUND; a post id must be a version 7 UUID, a title is required
// and bounded; an admin's token is refused.
func TestPosts(t *testing.T) {
	env, api := newEnv(t)
	svc := &posts.Service{DB: env.DB, Store: models.PostStore{}.Prepared(env.DB), Emitter: events.Noop{},
		Enqueuer: queues.NewEnqueuer(env.Redis, env.Namespace), Now: env.Clock.Now, Log: env.Log}
	publish := &v1.Publish{Posts: svc}
	framework.Register(api.Framework, &v1.CreatePost{Posts: svc})
	framework.Register(api.Framework, publish)
	_, iss := env.Users.LoggedIn(t, action.Web)
	user := api.As(env.Users.Caller(iss))

	create := func(title string) string {
		res := user.Call(http.MethodPost, "/v1/posts/create", actiontest.Args{"title": "  " + title + " ", "body": "words"}).WantOK(t)
		p := obj(res, "post")
		if res.Status != http.StatusCreated || p["title"] != title || p["status"] != "draft" || p["userId"] != iss.Account.ID.String() {
			t.Fatalf("create answered %d %s", res.Status, res.Raw)
		}
		return p["id"].(string)
	}
	now, later := create("Now"), create("Later")
	res := user.Call(http.MethodPost, "/v1/posts/publish", actiontest.Args{"postId": now}).WantOK(t)
	if p := obj(res, "post"); res.Status != http.StatusOK || p["status"] != "published" || p["publishedAt"] == nil {
		t.Errorf("publish answered %d %s", res.Status, res.Raw)
	}
	res = user.Call(http.MethodPost, "/v1/posts/publish", actiontest.Args{"postId": later, "async": true}).WantOK(t)
	jobs := env.Jobs(t, queues.PostQueue, queues.V1PublishTask)
	if res.Status != http.StatusAccepted || res.String("jobId") == "" || len(jobs) != 1 || jobs[0].ID != res.String("jobId") ||
		jobs[0].ArgString("postId") != later {
		t.Errorf("an async publish answered %d %s with jobs %+v", res.Status, res.Raw, jobs)
	}

	_, stranger := env.Users.LoggedIn(t, action.Web)
	for _, args := range []actiontest.Args{{"postId": later}, {"postId": later, "async": true}} {
		wantError(t, api.As(env.Users.Caller(stranger)).Call(http.MethodPost, "/v1/posts/publish", args),
			publish.Spec(), http.StatusNotFound, "POST_NOT_FOUND")
	}
	wantError(t, user.Call(http.MethodPost, "/v1/posts/publish", actiontest.Args{"postId": uuid.Must(uuid.NewV7()).String()}),
		publish.Spec(), http.StatusNotFound, "POST_NOT_FOUND")
	wantInvalid(t, user.Call(http.MethodPost, "/v1/posts/publish", actiontest.Args{"postId": uuid.NewString()}), "postId")
	wantInvalid(t, user.Call(http.MethodPost, "/v1/posts/publish", nil), "postId")
	wantInvalid(t, user.Call(http.MethodPost, "/v1/posts/create", actiontest.Args{"title": "  "}), "title")
	wantInvalid(t, user.Call(http.MethodPost, "/v1/posts/create", actiontest.Args{"title": strings.Repeat("t", 201)}), "title")
	_, admin := env.Admins.LoggedIn(t, action.Web)
	api.As(env.Admins.Caller(admin)).Call(http.MethodPost, "/v1/posts/create", actiontest.Args{"title": "No"}).
		WantError(t, http.StatusUnauthorized, "UNAUTHORIZED")
}
