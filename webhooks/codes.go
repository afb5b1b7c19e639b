package webhooks

import (
	"embed"

	"github.com/actionkit/actionkit/errorcodes"
)

// The error codes of the webhook actions. Never change the ID or status of
// a released code (the server's codes.golden pins them); their messages are
// in messages/*.json.
const (
	WebhookNotFound errorcodes.Code = "ADMIN_WEBHOOK_NOT_FOUND 404 admin.webhook_not_found"
)

// ErrorCodes returns the codes of the webhooks, to be given to
// errorcodes.NewCatalog with its Messages.
func ErrorCodes() []errorcodes.Code { return []errorcodes.Code{WebhookNotFound} }

//go:embed messages/*.json
var messageFiles embed.FS

// Messages returns the translations of ErrorCodes, by locale.
func Messages() errorcodes.Messages { return errorcodes.MustLoadMessages(messageFiles, "messages") }
