package errorcodes

import (
	"errors"
	"time"
)

// Code is an API error code: its identifier, HTTP status and message key.
type Code struct {
	// ID is the identifier carried in the error body, such as
	// "USER_BAD_REQUEST_USER_ALREADY_EXISTS".
	ID string
	// Status is the HTTP status of a response carrying the code.
	Status int
	// Key names the code's message in every locale of a Catalog.
	Key string
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
	cause      error
}

// Error returns the code's identifier, and the cause's text when wrapped.
func (e *Error) Error() string {
	if e.cause != nil {
		return e.Code.ID + ": " + e.cause.Error()
	}
	return e.Code.ID
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
	return ok && e.Code.ID == c.ID
}
