package posts

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/events"
	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// recorder is an in-memory Emitter: the socket delivery itself is tested
// end to end with a real client in package server.
type recorder struct {
	mu     sync.Mutex
	events []events.PostPublishedPayload
	fail   error
}

func (r *recorder) Emit(_ context.Context, room, event string, payload any) error {
	if room != events.RoomFeed || event != events.PostPublished {
		return errors.New("unexpected room or event")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, payload.(events.PostPublishedPayload))
	return r.fail
}

func (r *recorder) DisconnectUser(context.Context, action.OwnerType, uuid.UUID) error { return nil }

func (r *recorder) DisconnectSessions(context.Context, action.OwnerType, ...uuid.UUID) error {
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

type fakeQueue struct{ ids []uuid.UUID }

func (q *fakeQueue) EnqueuePublish(id uuid.UUID) (string, error) {
	q.ids = append(q.ids, id)
	return "0123456789abcdef01234567", nil
}

func newService(t *testing.T) (*Service, *recorder, uuid.UUID) {
	t.Helper()
	db := pgtest.New(t)
	owner := uuid.Must(uuid.NewV7())
	acc := &models.Account{ID: owner, Email: owner.String() + "@x.io", Password: "p", Salt: "s", Timezone: "UTC", Locale: "en", IsActive: true}
	if err := models.NewAccountStore(models.UserTables).Create(t.Context(), db, acc); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	return &Service{
		DB: db, Emitter: rec, Enqueuer: &fakeQueue{},
		Moderate: Moderator{Blocked: []string{"spam"}}.Check,
		Now:      func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
		Log:      slog.New(slog.DiscardHandler),
	}, rec, owner
}

func TestPublishEmitsOnceAfterCommit(t *testing.T) {
	t.Parallel()
	s, rec, owner := newService(t)
	p, err := s.Create(t.Context(), owner, "Hello", "  a   body \n text ")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Publish(t.Context(), owner, p.ID); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if rec.count() != 1 {
		t.Fatalf("events = %d, want 1 for 10 concurrent publishes", rec.count())
	}
	got, _ := s.Store.ByID(t.Context(), s.DB, p.ID)
	if got.Status != models.PostPublished || got.Preview != "a body text" || !got.PublishedAt.Equal(rec.events[0].PublishedAt) {
		t.Errorf("post = %+v, event = %+v", got, rec.events[0])
	}
	if _, err := s.Publish(t.Context(), uuid.Must(uuid.NewV7()), p.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a stranger's publish: got %v, want ErrNotFound", err)
	}
	if _, err := s.Publish(t.Context(), owner, uuid.Must(uuid.NewV7())); !errors.Is(err, ErrNotFound) {
		t.Errorf("an absent post: got %v, want ErrNotFound", err)
	}
}

func TestPublishSurvivesAFailedEmit(t *testing.T) {
	t.Parallel()
	s, rec, owner := newService(t)
	rec.fail = errors.New("redis is down")
	p, _ := s.Create(t.Context(), owner, "Hello", "")
	got, err := s.Publish(t.Context(), owner, p.ID)
	if err != nil || got.Status != models.PostPublished {
		t.Errorf("got %+v, %v; want published despite the emit failure", got, err)
	}
}

func TestPublishJob(t *testing.T) {
	t.Parallel()
	s, rec, owner := newService(t)
	ok, _ := s.Create(t.Context(), owner, "Fine", "A perfectly fine post")
	bad, _ := s.Create(t.Context(), owner, "Buy now", "Cheap SPAM here")
	for i := 0; i < 3; i++ { // retries after success change nothing
		if err := s.RunPublishJob(t.Context(), ok.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RunPublishJob(t.Context(), bad.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RunPublishJob(t.Context(), uuid.Must(uuid.NewV7())); err != nil {
		t.Errorf("a vanished post should end the job quietly: %v", err)
	}
	if rec.count() != 1 || rec.events[0].PostID != ok.ID {
		t.Errorf("events = %+v, want one for the fine post", rec.events)
	}
	if got, _ := s.Store.ByID(t.Context(), s.DB, bad.ID); got.Status != models.PostDraft {
		t.Errorf("the refused post is %s, want draft", got.Status)
	}
	if got, _ := s.Store.ByID(t.Context(), s.DB, ok.ID); got.Preview != "A perfectly fine post" {
		t.Errorf("preview = %q", got.Preview)
	}
}

func TestPublishLaterChecksOwnership(t *testing.T) {
	t.Parallel()
	s, rec, owner := newService(t)
	p, _ := s.Create(t.Context(), owner, "Later", "")
	id, err := s.PublishLater(t.Context(), owner, p.ID)
	if err != nil || id == "" {
		t.Fatalf("PublishLater = %q, %v", id, err)
	}
	if _, err := s.PublishLater(t.Context(), uuid.Must(uuid.NewV7()), p.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a stranger's post: got %v, want ErrNotFound", err)
	}
	if q := s.Enqueuer.(*fakeQueue); len(q.ids) != 1 || rec.count() != 0 {
		t.Errorf("enqueued %v, emitted %d; want one job and no event", q.ids, rec.count())
	}
}

func TestModerator(t *testing.T) {
	m := Moderator{Blocked: []string{"casino", "free-money"}}
	for _, tc := range []struct {
		name, title, body string
		refused           bool
	}{
		{"clean", "Hello", "world", false},
		{"blocked word any case", "Best CASINO", "", true},
		{"blocked word in body", "x", "get free-money now", true},
		{"substring is not a word", "casinos", "occasion", false},
		{"five links", "x", strings.Repeat("https://a.example ", 5), false},
		{"six links", "x", strings.Repeat("http://a.example ", 6), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.Check(tc.title, tc.body) != nil; got != tc.refused {
				t.Errorf("refused = %v, want %v", got, tc.refused)
			}
		})
	}
}
