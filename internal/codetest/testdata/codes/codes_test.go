package codes

import ec "github.com/actionkit/actionkit/errorcodes"

// InTest is declared by a test file: not one of the package's codes.
const InTest ec.Code = "IN_TEST 400 in.test"
