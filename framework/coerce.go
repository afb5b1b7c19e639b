package framework

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/invopop/validation"

	"github.com/actionkit/actionkit/errorcodes"
)

// coerce converts a raw argument (a string from the query or a form, or a
// value decoded from JSON) to the field's declared type. A string becomes a
// number or boolean only where one is declared; a number or object given for
// a string is refused.
func (f *field) coerce(raw any) (reflect.Value, *errorcodes.FieldError) {
	switch f.kind {
	case kindString:
		if s, ok := raw.(string); ok {
			for _, m := range f.mods {
				s = m(s)
			}
			return reflect.ValueOf(s), nil
		}
		return reflect.Value{}, fieldErr("type_string", "must be a string")
	case kindBool:
		return coerceBool(raw)
	case kindInt, kindUint, kindFloat:
		return f.coerceNumber(raw)
	case kindUUID:
		return coerceUUID(raw)
	case kindObject:
		return coerceObject(raw)
	case kindStrings:
		return coerceStrings(raw)
	}
	panic("framework: unreachable argument kind")
}

func coerceBool(raw any) (reflect.Value, *errorcodes.FieldError) {
	switch v := raw.(type) {
	case bool:
		return reflect.ValueOf(v), nil
	case string:
		switch v {
		case "true":
			return reflect.ValueOf(true), nil
		case "false":
			return reflect.ValueOf(false), nil
		}
	}
	return reflect.Value{}, fieldErr("type_boolean", "must be true or false")
}

func (f *field) coerceNumber(raw any) (reflect.Value, *errorcodes.FieldError) {
	var text string
	switch v := raw.(type) {
	case json.Number:
		text = string(v)
	case string:
		text = v
	default:
		if f.kind == kindFloat {
			return reflect.Value{}, fieldErr("type_number", "must be a number")
		}
		return reflect.Value{}, fieldErr("type_integer", "must be an integer")
	}
	switch f.kind {
	case kindInt:
		n, err := strconv.ParseInt(text, 10, f.bits)
		if err != nil {
			return reflect.Value{}, numErr(err, "type_integer", "must be an integer")
		}
		return reflect.ValueOf(n), nil
	case kindUint:
		n, err := strconv.ParseUint(text, 10, f.bits)
		if err != nil {
			return reflect.Value{}, numErr(err, "type_integer", "must be an integer")
		}
		return reflect.ValueOf(n), nil
	}
	n, err := strconv.ParseFloat(text, f.bits)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) || strings.ContainsAny(text, "xXpP_") {
		return reflect.Value{}, numErr(err, "type_number", "must be a number")
	}
	return reflect.ValueOf(n), nil
}

func numErr(err error, code, msg string) *errorcodes.FieldError {
	if errors.Is(err, strconv.ErrRange) {
		return fieldErr("out_of_range", "is out of range")
	}
	return fieldErr(code, msg)
}

func coerceUUID(raw any) (reflect.Value, *errorcodes.FieldError) {
	s, ok := raw.(string)
	if !ok || len(s) != 36 {
		return reflect.Value{}, fieldErr("type_uuid", "must be a UUID")
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return reflect.Value{}, fieldErr("type_uuid", "must be a UUID")
	}
	return reflect.ValueOf(id), nil
}

// coerceObject accepts a JSON object of the body, which the decoder has
// read into a map (numbers kept as written), and re-encodes it as the
// field's json.RawMessage. A string is refused even when it holds JSON: a
// query string or a form cannot carry an object.
func coerceObject(raw any) (reflect.Value, *errorcodes.FieldError) {
	m, ok := raw.(map[string]any)
	if !ok {
		return reflect.Value{}, fieldErr("not_object", "must be a JSON object")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return reflect.Value{}, fieldErr("not_object", "must be a JSON object")
	}
	return reflect.ValueOf(json.RawMessage(b)), nil
}

// maxListItems bounds the items of a list argument.
const maxListItems = 100

// coerceStrings accepts a JSON array of at most maxListItems strings, none
// holding a NUL character. A string is refused: a query string or a form
// cannot carry a list.
func coerceStrings(raw any) (reflect.Value, *errorcodes.FieldError) {
	items, ok := raw.([]any)
	if !ok || len(items) > maxListItems {
		return reflect.Value{}, fieldErr("not_array", "must be a JSON array of at most 100 strings")
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok || strings.IndexByte(s, 0) >= 0 {
			return reflect.Value{}, fieldErr("not_array", "must be a JSON array of at most 100 strings")
		}
		out[i] = s
	}
	return reflect.ValueOf(out), nil
}

// set stores a coerced value into the field of the argument struct,
// converting to the exact declared type (int32, *string, ...).
func (f *field) set(dst reflect.Value, v reflect.Value) {
	target := dst.FieldByIndex(f.index)
	elemType := target.Type()
	if f.ptr {
		elemType = elemType.Elem()
	}
	v = v.Convert(elemType)
	if f.ptr {
		p := reflect.New(elemType)
		p.Elem().Set(v)
		target.Set(p)
		return
	}
	target.Set(v)
}

func fieldErr(code, msg string) *errorcodes.FieldError {
	return &errorcodes.FieldError{Code: code, Message: msg}
}

// toFieldError converts a validation rule's error to a field error whose
// code selects a translated message ("validation_required" → "required").
func toFieldError(err error) errorcodes.FieldError {
	var verr validation.Error
	if errors.As(err, &verr) {
		return errorcodes.FieldError{
			Code:    strings.TrimPrefix(verr.Code(), "validation_"),
			Message: verr.Error(),
			Params:  verr.Params(),
		}
	}
	return errorcodes.FieldError{Code: "invalid", Message: err.Error()}
}
