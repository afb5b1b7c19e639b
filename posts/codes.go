package posts

import (
	"embed"

	"github.com/actionkit/actionkit/errorcodes"
)

// The error codes of the publishing actions. Never change the ID or status
// of a released code (the server's codes.golden pins them); their messages
// are in messages/*.json.
const (
	PostNotFound errorcodes.Code = "POST_NOT_FOUND 404 post.not_found"
)

// ErrorCodes returns the codes of the publishing engine, to be given to
// errorcodes.NewCatalog with its Messages.
func ErrorCodes() []errorcodes.Code { return []errorcodes.Code{PostNotFound} }

//go:embed messages/*.json
var messageFiles embed.FS

// Messages returns the translations of ErrorCodes, by locale.
func Messages() errorcodes.Messages { return errorcodes.MustLoadMessages(messageFiles, "messages") }
