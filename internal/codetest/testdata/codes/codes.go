// Package codes declares error codes in every form codetest must find.
package codes

import ec "github.com/actionkit/actionkit/errorcodes"

const (
	A    ec.Code = "A_CODE 400 a.code"
	B, C ec.Code = "B_CODE 400 b.code", "C_CODE 404 c.code"
	// notCode is a string, not a code.
	notCode = "NOT_A_CODE 400 not.code"
)

// D is converted to a code.
var D = ec.Code("D_CODE 409 d.code")

func local() ec.Code {
	const inside ec.Code = "LOCAL 400 local" // not at the package's level
	return inside
}
