package errorcodes

// The framework's own codes. An application declares its codes beside the
// code that returns them (the bundled server's are in accounts and posts)
// and gives them to NewCatalog with these. Never change the ID or status of
// a released code (the server's codes.golden pins them).
const (
	BadRequestInvalidArguments Code = "BAD_REQUEST_INVALID_ARGUMENTS 400 bad_request.invalid_arguments"
	Unauthorized               Code = "UNAUTHORIZED 401 unauthorized"
	InternalServerError        Code = "INTERNAL_SERVER_ERROR 500 internal_server_error"
	NotFound                   Code = "NOT_FOUND 404 not_found"
	TooManyRequests            Code = "TOO_MANY_REQUESTS 429 too_many_requests"
	ServiceUnavailable         Code = "SERVICE_UNAVAILABLE 503 service_unavailable"
	Forbidden                  Code = "FORBIDDEN 403 forbidden"
	ServiceBusy                Code = "SERVICE_BUSY 503 service_busy"
	MethodNotAllowed           Code = "METHOD_NOT_ALLOWED 405 method_not_allowed"
	// ForbiddenInsufficientScope answers an OAuth access token whose scope
	// lacks one of the action's Spec.Scopes.
	ForbiddenInsufficientScope Code = "FORBIDDEN_INSUFFICIENT_SCOPE 403 forbidden.insufficient_scope"
)

// Framework returns the framework's own codes.
func Framework() []Code {
	return []Code{
		BadRequestInvalidArguments,
		Unauthorized,
		InternalServerError,
		NotFound,
		TooManyRequests,
		ServiceUnavailable,
		Forbidden,
		ServiceBusy,
		MethodNotAllowed,
	}
}

// Later returns the framework's codes released after Framework(), in
// release order: a server lists them after its own codes, so that its list
// of codes only ever grows at its end.
func Later() []Code {
	return []Code{ForbiddenInsufficientScope}
}
