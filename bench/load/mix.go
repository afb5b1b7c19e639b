package main

import (
	"fmt"
	"strconv"
	"strings"
)

// mixEntry is one kind of operation of a blend and its share.
type mixEntry struct {
	Name   string
	Weight float64
}

// mix is a blend of operations, such as 80% read and 20% publish.
type mix []mixEntry

// defaultMix is the blend of the mixed scenario: mostly profile reads, some
// publishing, the refreshes of apps coming back, and a few logins.
const defaultMix = "read=80,publish=10,refresh=8,login=2"

// mixKinds are the operations a blend may name.
var mixKinds = []string{"read", "publish", "refresh", "login"}

// parseMix reads a blend written as "name=weight,...". Weights are
// positive numbers, relative to their sum; each name at most once.
func parseMix(s string) (mix, error) {
	var m mix
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name, weight, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("mix: %q is not name=weight", part)
		}
		w, err := strconv.ParseFloat(weight, 64)
		if err != nil || w <= 0 || w != w {
			return nil, fmt.Errorf("mix: weight of %q is %q, want a positive number", name, weight)
		}
		known := false
		for _, k := range mixKinds {
			known = known || k == name
		}
		if !known || seen[name] {
			return nil, fmt.Errorf("mix: %q is unknown or repeated; want each of %s at most once", name, strings.Join(mixKinds, ", "))
		}
		seen[name] = true
		m = append(m, mixEntry{Name: name, Weight: w})
	}
	return m, nil
}

// pick returns the operation that r, uniform in [0, 1), falls on: the
// entries cover consecutive stretches of [0, 1) in proportion to their
// weights.
func (m mix) pick(r float64) string {
	var total float64
	for _, e := range m {
		total += e.Weight
	}
	x := r * total
	for _, e := range m {
		if x < e.Weight {
			return e.Name
		}
		x -= e.Weight
	}
	return m[len(m)-1].Name // r rounding up to the very end
}

// String writes the blend as percentages, such as "80% read, 20% publish".
func (m mix) String() string {
	var total float64
	for _, e := range m {
		total += e.Weight
	}
	parts := make([]string, len(m))
	for i, e := range m {
		parts[i] = strconv.FormatFloat(100*e.Weight/total, 'f', -1, 64) + "% " + e.Name
	}
	return strings.Join(parts, ", ")
}
