package models_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// createPost stores a draft of owner.
func createPost(t testing.TB, db models.DB, owner *models.Account, title string) *models.Post {
	t.Helper()
	p := &models.Post{ID: newID(t), UserID: owner.ID, Title: title}
	if err := (models.PostStore{}).Create(testCtx(t), db, p); err != nil {
		t.Fatalf("create post: %v", err)
	}
	return p
}

func TestPostCreateAndRead(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.PostStore{}, testNow()
	owner := createAccount(t, db, models.UserTables, "author@x.io")
	stranger := createAccount(t, db, models.UserTables, "stranger@x.io")
	p := &models.Post{ID: newID(t), UserID: owner.ID, Title: "Hello", Body: "World", CreatedAt: now, UpdatedAt: now}
	if err := store.Create(ctx, db, p); err != nil {
		t.Fatal(err)
	}
	want := models.Post{ID: p.ID, UserID: owner.ID, Title: "Hello", Body: "World", Status: models.PostDraft, CreatedAt: now, UpdatedAt: now}
	if !reflect.DeepEqual(*p, want) {
		t.Errorf("after Create: got %+v, want %+v", *p, want)
	}
	for name, get := range map[string]func() (*models.Post, error){
		"ByID":         func() (*models.Post, error) { return store.ByID(ctx, db, p.ID) },
		"ByIDForOwner": func() (*models.Post, error) { return store.ByIDForOwner(ctx, db, p.ID, owner.ID) },
	} {
		if got, err := get(); err != nil || !reflect.DeepEqual(*got, want) {
			t.Errorf("%s: got %+v, %v, want %+v", name, got, err, want)
		}
	}
	_, err := store.ByIDForOwner(ctx, db, p.ID, stranger.ID)
	wantErr(t, "ByIDForOwner of a foreign post", err, models.ErrNotFound)
	_, err = store.ByIDForOwner(ctx, db, newID(t), owner.ID)
	wantErr(t, "ByIDForOwner of an absent post", err, models.ErrNotFound)
	_, err = store.ByID(ctx, db, newID(t))
	wantErr(t, "ByID of an absent post", err, models.ErrNotFound)
}

func TestPublish(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.PostStore{}, testNow()
	owner := createAccount(t, db, models.UserTables, "author@x.io")
	stranger := createAccount(t, db, models.UserTables, "stranger@x.io")
	p := createPost(t, db, owner, "t")

	_, _, err := store.Publish(ctx, db, p.ID, stranger.ID, now)
	wantErr(t, "Publish by a stranger", err, models.ErrNotFound)
	_, _, err = store.Publish(ctx, db, newID(t), owner.ID, now)
	wantErr(t, "Publish of an absent post", err, models.ErrNotFound)

	got, changed, err := store.Publish(ctx, db, p.ID, owner.ID, now)
	if err != nil || !changed || got.Status != models.PostPublished || got.PublishedAt == nil ||
		!got.PublishedAt.Equal(now) || !got.UpdatedAt.Equal(now) {
		t.Fatalf("first Publish: got %+v, %v, %v, want published at %v, changed", got, changed, err, now)
	}
	again, changed, err := store.Publish(ctx, db, p.ID, owner.ID, now.Add(time.Hour))
	if err != nil || changed || !reflect.DeepEqual(again, got) {
		t.Errorf("second Publish: got %+v, %v, %v, want %+v unchanged", again, changed, err, got)
	}
	_, _, err = store.Publish(ctx, db, p.ID, stranger.ID, now)
	wantErr(t, "Publish of a published post by a stranger", err, models.ErrNotFound)
}

func TestPublishConcurrent(t *testing.T) {
	t.Parallel()
	const n = 10
	db := openPool(t, n)
	store, now := models.PostStore{}, testNow()
	owner := createAccount(t, db, models.UserTables, "author@x.io")
	p := createPost(t, db, owner, "t")
	changed := make([]bool, n)
	errs := make([]error, n)
	race(n, func(i int) { _, changed[i], errs[i] = store.Publish(testCtx(t), db, p.ID, owner.ID, now) })
	var got int
	for i := range n {
		if errs[i] != nil {
			t.Errorf("Publish %d: %v", i, errs[i])
		}
		if changed[i] {
			got++
		}
	}
	if got != 1 {
		t.Errorf("calls that changed the post: got %d, want 1", got)
	}
}

func TestPublishAny(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.PostStore{}, testNow()
	owner := createAccount(t, db, models.UserTables, "author@x.io")
	p := createPost(t, db, owner, "t")
	got, changed, err := store.PublishAny(ctx, db, p.ID, now)
	if err != nil || !changed || got.Status != models.PostPublished || !got.PublishedAt.Equal(now) || got.Preview != "t" {
		t.Fatalf("PublishAny: got %+v, %v, %v, want published with its preview, changed", got, changed, err)
	}
	if _, changed, err := store.PublishAny(ctx, db, p.ID, now.Add(time.Hour)); err != nil || changed {
		t.Errorf("second PublishAny: got changed %v, %v, want false, nil", changed, err)
	}
	_, _, err = store.PublishAny(ctx, db, newID(t), now)
	wantErr(t, "PublishAny of an absent post", err, models.ErrNotFound)
}

// TestPostPreview checks the post_preview function that publishing stores.
func TestPostPreview(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	long := strings.Repeat("word ", 100)
	for _, tc := range []struct{ name, title, body, want string }{
		{"body collapsed", "T", " a \n\t b  ", "a b"},
		{"title when no body", "  The   title ", "", "The title"},
		{"title when the body is blank", "T", " \n ", "T"},
		{"short body kept", "T", "Short and sweet.", "Short and sweet."},
		{"cut at a word with an ellipsis", "T", long, strings.TrimSpace(strings.Repeat("word ", 31)) + "…"},
		{"cut at the last space past the 80th character", "T", strings.Repeat("x", 100) + " " + strings.Repeat("y", 100), strings.Repeat("x", 100) + "…"},
		{"cut mid-word when no space is late enough", "T", strings.Repeat("x", 50) + " " + strings.Repeat("y", 150), strings.Repeat("x", 50) + " " + strings.Repeat("y", 108) + "…"},
		{"trailing punctuation dropped", "T", strings.Repeat("ab, ", 60), strings.TrimSuffix(strings.Repeat("ab, ", 39), ", ") + "…"},
		{"unicode counted in characters", "T", strings.Repeat("é", 200), strings.Repeat("é", 159) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			if err := db.Get(&got, `SELECT post_preview($1, $2)`, tc.title, tc.body); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("post_preview = %q, want %q", got, tc.want)
			}
		})
	}
}
