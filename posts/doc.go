// Package posts publishes posts: directly, or through a background job
// that first runs a moderation check. Either way the publish stores the
// post's preview (computed by the database, see models.PostStore.Publish).
//
// Publishing is one conditional UPDATE, so however many requests or job
// runs race on one draft, exactly one of them flips it to published, and
// only that one emits POST_PUBLISHED, after its statement has committed. A
// job that is retried after a partial failure finds the post published and
// emits nothing: the event is sent at most once. If emitting fails (no
// socket server, Redis down) the publish still stands and the failure is
// logged.
package posts
