package v1

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/posts"
)

// PostView is the post object on the wire.
type PostView struct {
	ID          uuid.UUID  `json:"id"`
	UserID      uuid.UUID  `json:"userId"`
	Title       string     `json:"title"`
	Body        string     `json:"body"`
	Status      string     `json:"status"`
	PublishedAt *time.Time `json:"publishedAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

// ViewPost builds the wire object of p.
func ViewPost(p *models.Post) *PostView {
	return &PostView{ID: p.ID, UserID: p.UserID, Title: p.Title, Body: p.Body, Status: p.Status,
		PublishedAt: p.PublishedAt, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// CreatePost adds a draft post of the caller.
type CreatePost struct {
	Posts *posts.Service
}

// CreatePostArgs are the arguments of CreatePost.
type CreatePostArgs struct {
	Title string `arg:"title" mod:"trim" validate:"required,max=200"`
	Body  string `arg:"body" validate:"max=20000"`
}

// PostResult carries one post.
type PostResult struct {
	Post *PostView `json:"post"`
}

// Spec declares V1CreatePost.
func (*CreatePost) Spec() action.Spec {
	return action.Spec{Name: "V1CreatePost", Path: "/v1/posts/create", Summary: "Create a draft post",
		Auth: action.Owner("user"), Status: http.StatusCreated,
		Scopes: []string{ScopePostsWrite}, Tool: toolCreatePost}
}

// Run creates the draft.
func (a *CreatePost) Run(ctx context.Context, req *action.Request, in *CreatePostArgs) (*PostResult, error) {
	p, err := a.Posts.Create(ctx, req.Caller.ID, in.Title, in.Body)
	if err != nil {
		return nil, err
	}
	return &PostResult{Post: ViewPost(p)}, nil
}

// Publish publishes a draft post of the caller: at once (200 with the post,
// POST_PUBLISHED emitted after the commit) or, with async, through the
// background job (202 with its jobId; the job emits on completion).
type Publish struct {
	Posts *posts.Service
}

// PublishArgs are the arguments of Publish.
type PublishArgs struct {
	PostID uuid.UUID `arg:"postId" validate:"required,uuid7"`
	Async  bool      `arg:"async" default:"false"`
}

// PublishResult is the post, or the job that will publish it.
type PublishResult struct {
	Post  *PostView `json:"post,omitempty"`
	JobID string    `json:"jobId,omitempty"`
}

// StatusCode is 202 when the work was handed to a job.
func (r *PublishResult) StatusCode() int {
	if r.JobID != "" {
		return http.StatusAccepted
	}
	return http.StatusOK
}

// Spec declares V1Publish.
func (*Publish) Spec() action.Spec {
	return action.Spec{Name: "V1Publish", Path: "/v1/posts/publish", Summary: "Publish a draft post",
		Auth: action.Owner("user"), Errors: []errorcodes.Code{posts.PostNotFound},
		Scopes: []string{ScopePostsWrite}, Tool: toolPublishPost}
}

// Run publishes, or enqueues the publish.
func (a *Publish) Run(ctx context.Context, req *action.Request, in *PublishArgs) (*PublishResult, error) {
	if in.Async {
		id, err := a.Posts.PublishLater(ctx, req.Caller.ID, in.PostID)
		if err != nil {
			return nil, postError(err)
		}
		return &PublishResult{JobID: id}, nil
	}
	p, err := a.Posts.Publish(ctx, req.Caller.ID, in.PostID)
	if err != nil {
		return nil, postError(err)
	}
	return &PublishResult{Post: ViewPost(p)}, nil
}

func postError(err error) error {
	if errors.Is(err, posts.ErrNotFound) {
		return posts.PostNotFound.New()
	}
	return err
}
