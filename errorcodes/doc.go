// Package errorcodes is the type of API error codes, the error that
// carries one, the catalog of their translated messages, and the
// framework's own codes.
//
// A Code is an identifier (carried in the "error" field of an error body), an
// HTTP status and a message key, written as one constant where the code is
// returned:
//
//	const PostNotFound errorcodes.Code = "POST_NOT_FOUND 404 post.not_found"
//
// An application gives its codes and their messages to NewCatalog beside
// Framework(); a code given twice fails there, at start. Once released, a
// code's identifier and status never change. Expected failures are
// returned as an *Error built fresh from a Code:
//
//	return nil, posts.PostNotFound.New()
//
// Anything else a handler returns becomes INTERNAL_SERVER_ERROR.
package errorcodes
