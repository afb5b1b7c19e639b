// Package errorcodes is the registry of API error codes, the error type that
// carries one, and the catalog of their translated messages.
//
// A Code is an identifier (carried in the "error" field of an error body), an
// HTTP status and a message key. Codes are append-only: once released, a
// code's identifier and status never change, and a golden test pins them.
// Expected failures are returned as an *Error built fresh from a Code:
//
//	return nil, errorcodes.PostNotFound.New()
//
// Anything else a handler returns becomes INTERNAL_SERVER_ERROR.
package errorcodes
