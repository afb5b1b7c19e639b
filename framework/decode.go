package framework

import (
	"reflect"
	"strings"

	"github.com/invopop/validation"

	"github.com/actionkit/actionkit/errorcodes"
)

// repeated marks an argument given more than once in a query or form.
type repeated struct{}

// decode fills dst (a pointer to the argument struct) from the merged raw
// arguments: coerce by declared type, apply mods and defaults, then the
// rules. A string that is empty after its mods counts as absent, so its
// default applies and "required" refuses it. A string holding a NUL
// character is refused before anything else (PostgreSQL cannot store one),
// unless the argument allows it. It returns the refused arguments, or nil.
func (s *schema) decode(vals map[string]any, dst reflect.Value) map[string]errorcodes.FieldError {
	var errs map[string]errorcodes.FieldError
	fail := func(name string, fe errorcodes.FieldError) {
		if errs == nil {
			errs = map[string]errorcodes.FieldError{}
		}
		errs[name] = fe
	}
	for i := range s.fields {
		f := &s.fields[i]
		raw, present := vals[f.Name]
		if f.refusesNUL(raw) {
			fail(f.Name, *fieldErr("nul", "must not contain a NUL character"))
			continue
		}
		if f.Lenient && !f.usable(raw) {
			raw, present = nil, false
		}
		if _, rep := raw.(repeated); rep {
			fail(f.Name, *fieldErr("repeated", "must be given only once"))
			continue
		}
		var v reflect.Value
		if present && raw != nil {
			cv, ferr := f.coerce(raw)
			if ferr != nil {
				fail(f.Name, *ferr)
				continue
			}
			if f.kind != kindString || cv.Len() > 0 {
				v = cv
			}
		}
		switch {
		case v.IsValid():
			if err := validation.Validate(v.Interface(), f.rules...); err != nil {
				fail(f.Name, toFieldError(err))
				continue
			}
		case f.HasDef:
			v = f.defValue
		case f.Required:
			fail(f.Name, *fieldErr("required", "is required"))
			continue
		default:
			continue
		}
		f.set(dst, v)
	}
	return errs
}

// usable reports whether raw coerces and passes the rules; lenient
// arguments treat an unusable value as absent.
func (f *field) usable(raw any) bool {
	if raw == nil {
		return false
	}
	if _, rep := raw.(repeated); rep {
		return false
	}
	v, ferr := f.coerce(raw)
	return ferr == nil && validation.Validate(v.Interface(), f.rules...) == nil
}

// refusesNUL reports a raw string holding a NUL character given for a
// string argument that does not allow one.
func (f *field) refusesNUL(raw any) bool {
	s, ok := raw.(string)
	return ok && f.kind == kindString && !f.AllowNUL && strings.IndexByte(s, 0) >= 0
}
