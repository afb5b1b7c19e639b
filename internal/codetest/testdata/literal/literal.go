// Package literal declares a code whose value cannot be read.
package literal

import "github.com/actionkit/actionkit/errorcodes"

const prefix = "COMPUTED"

// Computed is not a string literal.
const Computed errorcodes.Code = prefix + " 400 computed"
