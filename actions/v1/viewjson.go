package v1

import (
	"encoding/hex"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/internal/jsonw"
)

// The answers every session call returns (register, login, refresh, read)
// are written here by hand, without encoding/json's reflection: these are
// the server's hottest answers. Each writes exactly the bytes encoding/json
// writes for the same value (HTML characters escaped, as the framework's
// encoder does); the tests compare the two over many values.

// appendJSON appends v's JSON object.
func (v *AccountView) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = appendUUID(b, v.ID)
	b = append(b, `,"email":`...)
	b = jsonw.AppendString(b, v.Email)
	b = append(b, `,"firstName":`...)
	b = jsonw.AppendString(b, v.FirstName)
	b = append(b, `,"lastName":`...)
	b = jsonw.AppendString(b, v.LastName)
	b = append(b, `,"timezone":`...)
	b = jsonw.AppendString(b, v.Timezone)
	b = append(b, `,"locale":`...)
	b = jsonw.AppendString(b, v.Locale)
	b = append(b, `,"isActive":`...)
	b = strconv.AppendBool(b, v.IsActive)
	b = append(b, `,"deletedAt":`...)
	if b, err = appendTimePtr(b, v.DeletedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"loginCount":`...)
	b = strconv.AppendInt(b, v.LoginCount, 10)
	b = append(b, `,"lastLoginAt":`...)
	if b, err = appendTimePtr(b, v.LastLoginAt); err != nil {
		return nil, err
	}
	b = append(b, `,"createdAt":`...)
	if b, err = appendTime(b, v.CreatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"updatedAt":`...)
	if b, err = appendTime(b, v.UpdatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"emailVerifiedAt":`...)
	if b, err = appendTimePtr(b, v.EmailVerifiedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"mfaEnabled":`...)
	b = strconv.AppendBool(b, v.MFAEnabled)
	b = append(b, `,"hasPassword":`...)
	b = strconv.AppendBool(b, v.HasPassword)
	return append(b, '}'), nil
}

// appendOwners appends the "user" and "admin" members of an answer, each
// left out when nil (omitempty); first reports that nothing precedes them
// in the object.
func appendOwners(b []byte, first bool, user, admin *AccountView) ([]byte, error) {
	var err error
	for _, m := range [2]struct {
		key string
		v   *AccountView
	}{{`"user":`, user}, {`"admin":`, admin}} {
		if m.v == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, m.key...)
		if b, err = m.v.appendJSON(b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// AppendJSON appends r's JSON object: what encoding/json writes for it.
func (r *SessionResult) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"token":`...)
	b = jsonw.AppendString(b, r.Token)
	if r.RefreshToken != "" {
		b = append(b, `,"refreshToken":`...)
		b = jsonw.AppendString(b, r.RefreshToken)
	}
	if r.DeviceToken != "" {
		b = append(b, `,"deviceToken":`...)
		b = jsonw.AppendString(b, r.DeviceToken)
	}
	b, err := appendOwners(b, false, r.User, r.Admin)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// AppendJSON appends r's JSON object: what encoding/json writes for it.
func (r *AccountResult) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b, err := appendOwners(b, true, r.User, r.Admin)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendUUID appends id as a JSON string in its canonical form (what
// its MarshalText writes), without the string it would allocate.
func appendUUID(b []byte, id uuid.UUID) []byte {
	b = append(b, '"')
	b = hex.AppendEncode(b, id[0:4])
	for _, part := range [...][2]int{{4, 6}, {6, 8}, {8, 10}, {10, 16}} {
		b = append(b, '-')
		b = hex.AppendEncode(b, id[part[0]:part[1]])
	}
	return append(b, '"')
}

// appendTime appends t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds). A time outside its fast case (a year outside 0-9999, an
// offset of seconds) goes through MarshalJSON itself, refusal included.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	if _, off := t.Zone(); t.Year() < 0 || t.Year() > 9999 || off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		q, err := t.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return append(b, q...), nil
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

// appendTimePtr appends *t, or null.
func appendTimePtr(b []byte, t *time.Time) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	return appendTime(b, *t)
}
