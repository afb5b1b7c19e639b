// Package framework is the runtime that serves actions.
//
// Register mounts an action (see package action) on an httprouter router
// for every method in Methods. For each request the framework
//
//  1. assigns a request id (X-Request-ID, a well-formed incoming one is
//     kept), answers CORS preflights and recovers panics;
//  2. merges query parameters and the body (a JSON object or a form; the
//     body wins on a clash) into one argument set, refusing invalid JSON,
//     non-object bodies, trailing data, invalid UTF-8, duplicate names and
//     bodies over Config.MaxBodyBytes;
//  3. reads X-Client and X-Platform, resolves the caller through the
//     injected Authenticator and applies the action's access rule and
//     allowed clients, before the action runs;
//  4. coerces each declared argument by its Go type, applies mods, defaults
//     and validation rules;
//  5. runs the typed handler and writes a flat JSON body, or maps its error
//     to a translated error body.
//
// Argument structs declare one field per argument with these tags:
//
//	arg:"name"           the argument's name (required; "-" skips the field);
//	                     arg:"name,lenient" treats an unusable value as absent
//	                     instead of refusing the request; a string holding
//	                     a NUL character is refused (400 naming it) unless
//	                     arg:"name,allownul" lets it reach the action, whose
//	                     own rule must then refuse it
//	default:"value"      used when the argument is absent or an empty string
//	mod:"trim,lower"     string modifiers: trim, lower, upper, or a name in Config.Mods
//	validate:"..."       required, email, uuid7, min=N, max=N (string length
//	                     or numeric value), oneof=a|b, pattern=RE, or a name
//	                     in Config.Rules
//
// Supported field types are string, bool, the integer and float types,
// uuid.UUID, and pointers to them (nil when absent), and json.RawMessage
// for an argument that is a JSON object (only a JSON body can carry one;
// the field receives the object re-encoded). A string becomes a
// number or boolean only where one is declared: "42" fills an int, while 42
// given for a string is refused.
//
// With Config.OAuth the service is also an OAuth protected resource: an
// action declaring Spec.Scopes takes, in step 3, an access token of the
// configured authorization server (RFC 9068, verified by package
// auth/accesstoken) whose scope holds them, answering the RFC 6750
// challenges otherwise; the framework serves the RFC 9728 metadata, and
// every action declaring Spec.Tool is an MCP tool at OAuth.MCPPath, whose
// call runs these same steps in process (docs/framework.md).
//
// All reflection happens in Register, which panics on a declaration error;
// serving a request never panics on its input.
package framework
