// Package posts publishes posts: directly, or through a background job
// that first runs a moderation check. Either way the publish stores the
// post's preview (computed by the database, see models.PostStore.Publish).
//
// A post is published, and POST_PUBLISHED emitted, at most once. The
// publish is one conditional UPDATE, so of any number of requests or job
// runs racing on one draft exactly one flips it to published, and only
// that one emits the event, after its statement has committed. A job
// retried after a partial failure finds the post published and emits
// nothing. If emitting fails (no socket server, Redis down), the publish
// still stands and the failure is logged.
package posts
