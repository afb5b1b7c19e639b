package posts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/events"
	"github.com/actionkit/actionkit/models"
)

// ErrNotFound reports a post that does not exist or is someone else's.
var ErrNotFound = errors.New("posts: post not found")

// Enqueuer hands a publish to the background job.
type Enqueuer interface {
	EnqueuePublish(postID uuid.UUID) (string, error)
}

// Service creates and publishes posts. Fields are dependencies, set once
// before use.
type Service struct {
	DB       *sqlx.DB
	Store    models.PostStore
	Emitter  events.Emitter
	Enqueuer Enqueuer
	// Moderate decides whether the background job may publish a post;
	// nil accepts everything.
	Moderate func(title, body string) error
	// Now returns the current time in UTC, truncated to microseconds.
	Now func() time.Time
	Log *slog.Logger
	// Published, when set, is called after each publish that changed a
	// post, with how: "direct" or "job".
	Published func(how string)
}

// Create adds a draft post of owner.
func (s *Service) Create(ctx context.Context, owner uuid.UUID, title, body string) (*models.Post, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := s.Now()
	p := &models.Post{ID: id, UserID: owner, Title: title, Body: body, Status: models.PostDraft, CreatedAt: now, UpdatedAt: now}
	if err := s.Store.Create(ctx, s.DB, p); err != nil {
		return nil, err
	}
	return p, nil
}

// Publish publishes owner's draft id now, in one statement that also
// stores its preview, and emits POST_PUBLISHED after the commit. A post
// already published is returned unchanged and emits nothing.
func (s *Service) Publish(ctx context.Context, owner, id uuid.UUID) (*models.Post, error) {
	p, changed, err := s.Store.Publish(ctx, s.DB, id, owner, s.Now())
	if err != nil {
		return nil, notFound(err)
	}
	if changed {
		s.announce(ctx, p, "direct")
	}
	return p, nil
}

// PublishLater checks that owner's post id exists, then enqueues the
// publish job and returns its id.
func (s *Service) PublishLater(ctx context.Context, owner, id uuid.UUID) (string, error) {
	if _, err := s.Store.ByIDForOwner(ctx, s.DB, id, owner); err != nil {
		return "", notFound(err)
	}
	jobID, err := s.Enqueuer.EnqueuePublish(id)
	if err != nil {
		return "", fmt.Errorf("enqueue publish of %s: %w", id, err)
	}
	return jobID, nil
}

// RunPublishJob is the background publish: moderation, then the
// conditional update that also writes the preview, then the event. A post
// that is gone, already published or refused by moderation ends the job
// without a retry.
func (s *Service) RunPublishJob(ctx context.Context, id uuid.UUID) error {
	p, err := s.Store.ByID(ctx, s.DB, id)
	if errors.Is(err, models.ErrNotFound) {
		s.Log.Warn("publish job: post not found", "postId", id.String())
		return nil
	}
	if err != nil {
		return err
	}
	if p.Status == models.PostPublished {
		return nil
	}
	if s.Moderate != nil {
		if reason := s.Moderate(p.Title, p.Body); reason != nil {
			s.Log.Warn("publish job: post refused by moderation", "postId", id.String(), "reason", reason.Error())
			return nil
		}
	}
	p, changed, err := s.Store.PublishAny(ctx, s.DB, id, s.Now())
	if err != nil {
		return err
	}
	if changed {
		s.announce(ctx, p, "job")
	}
	return nil
}

// announce emits POST_PUBLISHED for a post whose publish has committed.
func (s *Service) announce(ctx context.Context, p *models.Post, how string) {
	if s.Published != nil {
		s.Published(how)
	}
	payload := events.PostPublishedPayload{PostID: p.ID, Title: p.Title, PublishedAt: *p.PublishedAt}
	if err := s.Emitter.Emit(ctx, events.RoomFeed, events.PostPublished, payload); err != nil {
		s.Log.Warn("post published but no event was emitted", "postId", p.ID.String(), "error", err)
	}
}

// notFound turns the store's models.ErrNotFound into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, models.ErrNotFound) {
		return ErrNotFound
	}
	return err
}
