package webhooks

import (
	"slices"

	"github.com/actionkit/actionkit/models"
)

// AllEvents subscribes a webhook to every type, those added later too.
const AllEvents = "*"

// EventTypes are the types a webhook may subscribe to: every security
// event type and user_updated.
var EventTypes = []string{
	models.EventRegister, models.EventLogin, models.EventLoginFailed, models.EventLogout,
	models.EventLogoutAll, models.EventRefreshTheft, models.EventPasswordChanged,
	models.EventPasswordResetRequested, models.EventPasswordReset, models.EventEmailVerified,
	models.EventSessionRevoked, models.EventAccountDeactivated, models.EventAccountActivated,
	models.EventAccountDeleted, models.EventAccountRestored,
	models.EventMFAEnabled, models.EventMFADisabled, models.EventMFAChallengeFailed,
	models.EventRecoveryCodeUsed, models.EventRecoveryCodesRegenerated, models.EventMFAReset,
	models.EventReauthenticated,
	models.EventIdentityLinked, models.EventIdentityUnlinked, models.EventIdentityLoginFailed,
	models.EventPasskeyAdded, models.EventPasskeyRemoved, models.EventPasskeyWarning,
	// The OAuth apps and the account's own changes.
	"oauth_app_connected", "oauth_app_revoked", "email_changed", "email_change_reverted", "user_updated",
}

// checkEvents returns events without repeats, in the order given, and
// whether each is a type of EventTypes or "*" alone.
func checkEvents(events []string) ([]string, bool) {
	if len(events) == 0 {
		return nil, false
	}
	out := make([]string, 0, len(events))
	for _, e := range events {
		if e == AllEvents && len(events) == 1 {
			return []string{AllEvents}, true
		}
		if !slices.Contains(EventTypes, e) {
			return nil, false
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, true
}
