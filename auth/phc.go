package auth

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Bounds on the parameters of a hash Verify accepts. A stored hash beyond
// them is refused as malformed rather than allowed to allocate gigabytes.
const (
	maxMemoryKiB = 1 << 20 // 1 GiB
	maxTime      = 64
	minSaltLen   = 8 // RFC 9106 minimum
	maxSaltLen   = 64
	minKeyLen    = 16
	maxKeyLen    = 64
	maxEncoded   = 256
)

// b64 is the PHC base64 alphabet: standard, unpadded, canonical.
var b64 = base64.RawStdEncoding.Strict()

// ErrMalformedHash is wrapped by the error Verify returns for an encoded
// hash it cannot read: not the PHC form Hash writes, or parameters beyond
// the accepted bounds. It means corrupt or foreign data, not a wrong
// password.
var ErrMalformedHash = errors.New("auth: malformed password hash")

// params are the Argon2id parameters of one hash.
type params struct {
	memory  uint32
	time    uint32
	threads uint8
	saltLen uint32
	keyLen  uint32
}

// check reports whether p is within the accepted bounds.
func (p params) check() error {
	switch {
	case p.threads < 1:
		return errors.New("parallelism below 1")
	case p.memory < 8*uint32(p.threads) || p.memory > maxMemoryKiB:
		return fmt.Errorf("memory %d KiB outside [%d, %d]", p.memory, 8*uint32(p.threads), maxMemoryKiB)
	case p.time < 1 || p.time > maxTime:
		return fmt.Errorf("time %d outside [1, %d]", p.time, maxTime)
	case p.saltLen < minSaltLen || p.saltLen > maxSaltLen:
		return fmt.Errorf("salt of %d bytes outside [%d, %d]", p.saltLen, minSaltLen, maxSaltLen)
	case p.keyLen < minKeyLen || p.keyLen > maxKeyLen:
		return fmt.Errorf("key of %d bytes outside [%d, %d]", p.keyLen, minKeyLen, maxKeyLen)
	}
	return nil
}

// encode returns the PHC string of a hash made with p.
func (p params) encode(salt, key []byte) string {
	var b strings.Builder
	b.Grow(64 + b64.EncodedLen(len(salt)) + b64.EncodedLen(len(key)))
	fmt.Fprintf(&b, "$argon2id$v=%d$m=%d,t=%d,p=%d$", argon2.Version, p.memory, p.time, p.threads)
	b.WriteString(b64.EncodeToString(salt))
	b.WriteByte('$')
	b.WriteString(b64.EncodeToString(key))
	return b.String()
}

// decode parses a PHC string in exactly the form encode writes:
// $argon2id$v=19$m=<m>,t=<t>,p=<p>$<salt>$<key>. Optional PHC parts (keyid,
// data), other variants and other versions are refused.
func decode(encoded string) (p params, salt, key []byte, err error) {
	fail := func(why string) (params, []byte, []byte, error) {
		return params{}, nil, nil, fmt.Errorf("%w: %s", ErrMalformedHash, why)
	}
	if len(encoded) > maxEncoded {
		return fail("too long")
	}
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" {
		return fail("not five $-separated fields")
	}
	if parts[1] != "argon2id" {
		return fail("algorithm is not argon2id")
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return fail("version is not 19")
	}
	if p, err = decodeParams(parts[3]); err != nil {
		return fail(err.Error())
	}
	if salt, err = b64.DecodeString(parts[4]); err != nil {
		return fail("salt is not unpadded base64")
	}
	if key, err = b64.DecodeString(parts[5]); err != nil {
		return fail("key is not unpadded base64")
	}
	p.saltLen, p.keyLen = uint32(len(salt)), uint32(len(key))
	if err := p.check(); err != nil {
		return fail(err.Error())
	}
	return p, salt, key, nil
}

// decodeParams parses "m=<m>,t=<t>,p=<p>", in that order.
func decodeParams(s string) (params, error) {
	fields := strings.Split(s, ",")
	if len(fields) != 3 {
		return params{}, errors.New("parameters are not m,t,p")
	}
	var v [3]uint64
	for i, name := range [3]string{"m=", "t=", "p="} {
		digits, ok := strings.CutPrefix(fields[i], name)
		if !ok {
			return params{}, errors.New("parameters are not m,t,p")
		}
		n, err := decimal(digits, 32)
		if err != nil {
			return params{}, fmt.Errorf("parameter %s%q: %v", name, digits, err)
		}
		v[i] = n
	}
	if v[2] > 255 {
		return params{}, errors.New("parallelism above 255")
	}
	return params{memory: uint32(v[0]), time: uint32(v[1]), threads: uint8(v[2])}, nil
}

// decimal parses a canonical unsigned decimal: digits only, no leading zero.
func decimal(s string, bits int) (uint64, error) {
	if len(s) > 1 && s[0] == '0' {
		return 0, errors.New("leading zero")
	}
	return strconv.ParseUint(s, 10, bits)
}
