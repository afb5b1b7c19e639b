// Package dependency marks failures to reach a service the process
// depends on, such as PostgreSQL or Redis, so that they are answered as
// an outage (503 SERVICE_UNAVAILABLE with Retry-After) and not as a bug
// (500 INTERNAL_SERVER_ERROR).
//
// The mark is set where the technology is known, at the data-layer
// boundary: the package that talks to PostgreSQL decides which of its
// errors mean "unreachable" and wraps them with Unavailable; everything
// above passes the error on, wrapped or not, and the framework finds the
// mark with errors.As. Nothing above the data layer inspects error text.
//
//	if dependency.Network(err) || isShutdownCode(err) {
//		return dependency.Unavailable("postgresql", err)
//	}
package dependency
