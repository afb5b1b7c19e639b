package v1

import (
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/models"
)

// AccountView is the account object on the wire: an explicit whitelist, so
// that no password, salt, token version or hash can ever be serialised.
type AccountView struct {
	ID          uuid.UUID  `json:"id"`
	Email       string     `json:"email"`
	FirstName   string     `json:"firstName"`
	LastName    string     `json:"lastName"`
	Timezone    string     `json:"timezone"`
	Locale      string     `json:"locale"`
	IsActive    bool       `json:"isActive"`
	DeletedAt   *time.Time `json:"deletedAt"`
	LoginCount  int64      `json:"loginCount"`
	LastLoginAt *time.Time `json:"lastLoginAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	// EmailVerifiedAt is when the address was verified, or null.
	EmailVerifiedAt *time.Time `json:"emailVerifiedAt"`
}

// ViewAccount builds the wire object of a.
func ViewAccount(a *models.Account) *AccountView {
	return &AccountView{
		ID: a.ID, Email: a.Email, FirstName: a.FirstName, LastName: a.LastName,
		Timezone: a.Timezone, Locale: a.Locale, IsActive: a.IsActive, DeletedAt: a.DeletedAt,
		LoginCount: a.LoginCount, LastLoginAt: a.LastLoginAt, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		EmailVerifiedAt: a.EmailVerifiedAt,
	}
}

// SessionResult is the answer of register, login and refresh. The account
// is under the owner type's name ("user" or "admin"). RefreshToken is
// present only for app clients: a web page never sees the raw token, which
// it holds in an httpOnly cookie.
type SessionResult struct {
	Token        string       `json:"token"`
	RefreshToken string       `json:"refreshToken,omitempty"`
	User         *AccountView `json:"user,omitempty"`
	Admin        *AccountView `json:"admin,omitempty"`
}

// AccountResult is the answer of read.
type AccountResult struct {
	User  *AccountView `json:"user,omitempty"`
	Admin *AccountView `json:"admin,omitempty"`
}

// Empty is the answer of actions that carry nothing beyond status and
// success (logout, logoutall).
type Empty struct{}
