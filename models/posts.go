package models

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// Post is a row of posts.
type Post struct {
	ID     uuid.UUID `db:"id"`
	UserID uuid.UUID `db:"user_id"`
	Title  string    `db:"title"`
	Body   string    `db:"body"`
	// Status is PostDraft or PostPublished.
	Status      string     `db:"status"`
	PublishedAt *time.Time `db:"published_at"`
	// Preview is a plain-text excerpt, written when the post is published.
	Preview   string    `db:"preview"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

// The values of Post.Status.
const (
	// PostDraft is a post not published yet.
	PostDraft = "draft"
	// PostPublished is a published post; PublishedAt is set.
	PostPublished = "published"
)

// normalize converts every timestamp of p to UTC.
func (p *Post) normalize() {
	utc(&p.CreatedAt)
	utc(&p.UpdatedAt)
	utcPtr(&p.PublishedAt)
}

const (
	postColumns = `id, user_id, title, body, status, published_at, preview, created_at, updated_at`
	postSelect  = `SELECT ` + postColumns + ` FROM posts`
	postPublish = `UPDATE posts SET status = 'published', published_at = $2, updated_at = $2,
		preview = post_preview(title, body)
		WHERE id = $1 AND status = 'draft'`
)

// postQueries is the query table of PostStore.
var postQueries = struct{ create, byID, byIDForOwner, publishOwned, publishAny string }{
	create: `INSERT INTO posts (` + postColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8, now()), COALESCE($9, $8, now()))
		RETURNING created_at, updated_at`,
	byID:         postSelect + ` WHERE id = $1`,
	byIDForOwner: postSelect + ` WHERE id = $1 AND user_id = $2`,
	publishOwned: postPublish + ` AND user_id = $3 RETURNING ` + postColumns,
	publishAny:   postPublish + ` RETURNING ` + postColumns,
}

// PostStore reads and writes posts. The zero value is ready to use; see
// Prepared.
type PostStore struct{ q querier }

// Prepared returns the store with its queries prepared on pool (and in
// pool's transactions): see querier.
func (ps PostStore) Prepared(pool *sqlx.DB) PostStore {
	return PostStore{q: preparedOn(pool, queriesOf(&postQueries)...)}
}

// Create inserts p with every column as given, including its ID; an empty
// Status is stored as PostDraft. A zero CreatedAt is filled by the database
// with now(); a zero UpdatedAt takes the value of CreatedAt; both are set on
// p from RETURNING.
func (ps PostStore) Create(ctx context.Context, db DB, p *Post) error {
	if p.Status == "" {
		p.Status = PostDraft
	}
	row := ps.q.rowx(ctx, db, postQueries.create, p.ID, p.UserID, p.Title, p.Body, p.Status,
		p.PublishedAt, p.Preview, nullIfZero(p.CreatedAt), nullIfZero(p.UpdatedAt))
	if err := row.Scan(&p.CreatedAt, &p.UpdatedAt); err != nil {
		return storeErr("create post", err)
	}
	p.normalize()
	return nil
}

// ByID returns the post with id, or ErrNotFound.
func (ps PostStore) ByID(ctx context.Context, db DB, id uuid.UUID) (*Post, error) {
	return getRow[Post](ctx, ps.q, db, "post by id", postQueries.byID, id)
}

// ByIDForOwner returns the post with id if userID owns it. ErrNotFound means
// that it does not exist or belongs to someone else; the two are not told
// apart.
func (ps PostStore) ByIDForOwner(ctx context.Context, db DB, id, userID uuid.UUID) (*Post, error) {
	return getRow[Post](ctx, ps.q, db, "post by id for owner", postQueries.byIDForOwner, id, userID)
}

// Publish publishes the draft id of userID at now, storing its preview
// (the post_preview function of migration 0003), and returns it with
// changed true. The change is one conditional UPDATE, so of concurrent
// calls exactly one reports changed. A post of userID that is already
// published is returned as it is with changed false; a post that does not
// exist or belongs to someone else is ErrNotFound.
func (ps PostStore) Publish(ctx context.Context, db DB, id, userID uuid.UUID, now time.Time) (p *Post, changed bool, err error) {
	p, err = getRow[Post](ctx, ps.q, db, "publish post", postQueries.publishOwned, id, now, userID)
	if errors.Is(err, ErrNotFound) {
		p, err = ps.ByIDForOwner(ctx, db, id, userID)
		return p, false, err
	}
	return p, err == nil, err
}

// PublishAny is Publish without the owner check, for the background job.
func (ps PostStore) PublishAny(ctx context.Context, db DB, id uuid.UUID, now time.Time) (p *Post, changed bool, err error) {
	p, err = getRow[Post](ctx, ps.q, db, "publish post", postQueries.publishAny, id, now)
	if errors.Is(err, ErrNotFound) {
		p, err = ps.ByID(ctx, db, id)
		return p, false, err
	}
	return p, err == nil, err
}
