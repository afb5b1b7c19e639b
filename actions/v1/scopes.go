package v1

import "github.com/actionkit/actionkit/action"

// The OAuth scopes the bundled actions declare (CONTRACT §20): an access
// token of a third-party application or an agent calls an action on a
// user's behalf only when its scope holds the action's.
const (
	// ScopeAccountRead reads the user's own account (/v1/users/read).
	ScopeAccountRead = "account:read"
	// ScopePostsWrite creates and publishes the user's posts.
	ScopePostsWrite = "posts:write"
)

// Scopes lists every scope the bundled actions declare, in the order the
// server registers them: the scopes its authorization server supports
// beside the OpenID ones.
func Scopes() []string { return []string{ScopeAccountRead, ScopePostsWrite} }

// The MCP tools of the bundled actions.
var (
	toolReadAccount = &action.Tool{Name: "read_account",
		Description: "Read the signed-in user's own account: id, e-mail address, first and last name, time zone, locale, when the address was verified and whether a second factor is on. Takes no arguments (an id, when given, must be the user's own)."}
	toolCreatePost = &action.Tool{Name: "create_post",
		Description: "Create a draft post for the signed-in user, with a title (required, at most 200 characters) and a body (at most 20000 characters). The draft is not visible to others until publish_post publishes it; the answer holds the post and its id."}
	toolPublishPost = &action.Tool{Name: "publish_post",
		Description: "Publish one of the signed-in user's draft posts, named by the postId that create_post answered. With async true the publishing is done by a background job and the answer holds its jobId instead of the post."}
)
