package framework

import (
	"reflect"
	"slices"
	"strings"
)

// jsonField is one top-level key that encoding/json writes for a struct.
type jsonField struct {
	name  string
	opts  string // the tag's options after the name, such as "omitempty"
	typ   reflect.Type
	index []int
}

// jsonFields lists the keys encoding/json writes for struct t, in its
// order, by its rules: a `json:"-"` or unexported field is left out; the
// fields of an embedded struct without a name in its tag are promoted; a
// name at a shallower depth hides the same name deeper down; among fields
// of one name at one depth, the only tagged one wins, and if there is no
// single winner the name is left out. The result check of Register and
// the OpenAPI schemas both read it, so they cannot disagree.
func jsonFields(t reflect.Type) []jsonField {
	type embedded struct {
		t     reflect.Type
		index []int
	}
	type candidate struct {
		jsonField
		tagged bool
	}
	var out []jsonField
	claimed := map[string]bool{}
	visited := map[reflect.Type]bool{}
	level := []embedded{{t: t}}
	for len(level) > 0 {
		byName := map[string][]candidate{}
		var next []embedded
		for _, e := range level {
			if visited[e.t] {
				continue
			}
			visited[e.t] = true
			for i := 0; i < e.t.NumField(); i++ {
				sf := e.t.Field(i)
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(slices.Clip(e.index), i)
				if sf.Anonymous && name == "" {
					if ft := derefType(sf.Type); ft.Kind() == reflect.Struct {
						next = append(next, embedded{t: ft, index: index})
						continue
					}
				}
				if !sf.IsExported() {
					continue
				}
				c := candidate{jsonField{name: name, opts: opts, typ: sf.Type, index: index}, name != ""}
				if c.name == "" {
					c.name = sf.Name
				}
				byName[c.name] = append(byName[c.name], c)
			}
		}
		for name, cs := range byName {
			if claimed[name] {
				continue // hidden by a shallower field
			}
			claimed[name] = true
			var tagged []candidate
			for _, c := range cs {
				if c.tagged {
					tagged = append(tagged, c)
				}
			}
			switch {
			case len(tagged) == 1:
				out = append(out, tagged[0].jsonField)
			case len(cs) == 1:
				out = append(out, cs[0].jsonField)
			}
		}
		level = next
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}
