package errorcodes

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Code is an API error code: its identifier, HTTP status and message key,
// written as one constant, "<ID> <status> <key>":
//
//	const PostNotFound errorcodes.Code = "POST_NOT_FOUND 404 post.not_found"
//
// A code is a constant, so no package can reassign another's. Check (run
// by NewCatalog for every code it is given, so at start) refuses a
// malformed one.
type Code string

// ID is the identifier carried in the error body, such as
// "USER_BAD_REQUEST_USER_ALREADY_EXISTS".
func (c Code) ID() string {
	id, _, _ := strings.Cut(string(c), " ")
	return id
}

// Status is the HTTP status of a response carrying the code (500 for a
// malformed code).
func (c Code) Status() int {
	_, rest, _ := strings.Cut(string(c), " ")
	st, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(st)
	if err != nil || n < 400 || n > 599 {
		return http.StatusInternalServerError
	}
	return n
}

// Key names the code's message in every locale of a Catalog.
func (c Code) Key() string {
	_, rest, _ := strings.Cut(string(c), " ")
	_, key, _ := strings.Cut(rest, " ")
	return key
}

var idRe = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
var keyRe = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`)

// Check reports what is wrong with c, or nil: an ID of upper-case words
// joined by "_", a status from 400 to 599, and a key of lower-case words
// joined by ".", separated by single spaces.
func (c Code) Check() error {
	parts := strings.Split(string(c), " ")
	if len(parts) != 3 {
		return fmt.Errorf("errorcodes: code %q is not \"<ID> <status> <key>\"", string(c))
	}
	n, err := strconv.Atoi(parts[1])
	switch {
	case !idRe.MatchString(parts[0]):
		return fmt.Errorf("errorcodes: code %q: the ID must be upper-case words joined by _", string(c))
	case err != nil || n < 400 || n > 599 || strconv.Itoa(n) != parts[1]:
		return fmt.Errorf("errorcodes: code %q: the status must be 400 to 599", string(c))
	case !keyRe.MatchString(parts[2]):
		return fmt.Errorf("errorcodes: code %q: the key must be lower-case words joined by .", string(c))
	}
	return nil
}

// New returns a fresh error carrying the code.
func (c Code) New() *Error { return &Error{Code: c} }

// Wrap returns a fresh error carrying the code and recording cause, which is
// logged but never shown to the caller.
func (c Code) Wrap(cause error) *Error { return &Error{Code: c, cause: cause} }

// WithFields returns a fresh error carrying the code and per-argument
// reasons, for BAD_REQUEST_INVALID_ARGUMENTS.
func (c Code) WithFields(fields map[string]FieldError) *Error {
	return &Error{Code: c, Fields: fields}
}

// FieldError says why one argument was refused. Code selects a translated
// message ("field.<code>" in a Catalog); Message is the English fallback;
// Params fill the {name} placeholders of either.
type FieldError struct {
	Code    string
	Message string
	Params  map[string]any
}

// Error is an expected API failure carrying a Code.
type Error struct {
	Code Code
	// Fields holds per-argument reasons for BAD_REQUEST_INVALID_ARGUMENTS.
	Fields map[string]FieldError
	// RetryAfter, when positive, is sent as the Retry-After header.
	RetryAfter time.Duration
	// Details, when not nil, is a struct whose JSON members are added to
	// the error body beside the code and message, such as the one-time
	// handle of a login that needs a second factor. They must not repeat
	// the body's own keys.
	Details any
	cause   error
}

// Error returns the code's identifier, and the cause's text when wrapped.
func (e *Error) Error() string {
	if e.cause != nil {
		return e.Code.ID() + ": " + e.cause.Error()
	}
	return e.Code.ID()
}

// Unwrap returns the wrapped cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Is reports whether err carries code c.
func Is(err error, c Code) bool {
	e, ok := As(err)
	return ok && e.Code.ID() == c.ID()
}
