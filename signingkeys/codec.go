package signingkeys

import (
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/datakey"
	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/models"
)

// ErrDataKey reports a private key that does not open under the
// configured data-encryption key.
var ErrDataKey = errors.New("signingkeys: a private signing key does not open under DATA_ENCRYPTION_KEY")

// sealContext binds a sealed private key to its row, so that a ciphertext
// copied to another row does not open.
func sealContext(id uuid.UUID, kid string) []byte {
	return []byte("signing_keys:" + id.String() + ":" + kid)
}

// newRow makes a key pair of alg and the row that stores it for purpose,
// activated at activated, its private part sealed under dk. Times are
// truncated to the microseconds PostgreSQL keeps, so that a key read back
// is not active later than the process that made it believes.
func newRow(alg, purpose string, dk *datakey.Key, created, activated time.Time) (*models.SigningKey, error) {
	created, activated = created.UTC().Truncate(time.Microsecond), activated.UTC().Truncate(time.Microsecond)
	k, err := auth.GenerateKey(alg)
	if err != nil {
		return nil, err
	}
	if k.ID, err = jwks.Thumbprint(k.Public); err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(k.Public)
	if err != nil {
		return nil, err
	}
	priv, err := x509.MarshalPKCS8PrivateKey(k.Private)
	if err != nil {
		return nil, err
	}
	sealed, nonce, err := dk.Seal(priv, sealContext(id, k.ID))
	if err != nil {
		return nil, err
	}
	return &models.SigningKey{
		ID: id, Kid: k.ID, Alg: alg, Purpose: purpose, PublicKey: pub,
		PrivateKeyCiphertext: append(nonce, sealed...),
		CreatedAt:            created, ActivatedAt: activated,
	}, nil
}

// decode turns a row into an auth.Key whose windows follow from keep (how
// long a retired key keeps verifying). The private part is opened when
// withPrivate; a kid that is not its public key's thumbprint, a private
// key of another public key, or an algorithm that does not fit the row's
// purpose (an RS256 access-token key above all) is refused.
func decode(row *models.SigningKey, dk *datakey.Key, keep time.Duration, withPrivate bool) (*auth.Key, error) {
	if fits := (row.Purpose == models.SigningKeyAccess && auth.Asymmetric(row.Alg)) ||
		(row.Purpose == models.SigningKeyIDToken && row.Alg == auth.RS256); !fits {
		return nil, fmt.Errorf("signingkeys: key %s: an %s key of purpose %q", row.Kid, row.Alg, row.Purpose)
	}
	pub, err := x509.ParsePKIXPublicKey(row.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("signingkeys: key %s: public key: %w", row.Kid, err)
	}
	if kid, err := jwks.Thumbprint(pub); err != nil || kid != row.Kid {
		return nil, fmt.Errorf("signingkeys: key %s: the kid is not the public key's thumbprint", row.Kid)
	}
	k := &auth.Key{ID: row.Kid, Alg: row.Alg, Public: pub, ActiveFrom: row.ActivatedAt}
	if row.RetiredAt != nil {
		k.RetiredAt = *row.RetiredAt
		k.NotAfter = row.RetiredAt.Add(keep)
	}
	if withPrivate {
		if k.Private, err = openPrivate(row, dk); err != nil {
			return nil, err
		}
	}
	if err := k.Check(); err != nil {
		return nil, fmt.Errorf("signingkeys: %w", err)
	}
	return k, nil
}

// openPrivate opens the sealed private key of row.
func openPrivate(row *models.SigningKey, dk *datakey.Key) (crypto.Signer, error) {
	ct := row.PrivateKeyCiphertext
	if len(ct) < datakey.NonceSize {
		return nil, fmt.Errorf("key %s: %w", row.Kid, ErrDataKey)
	}
	der, err := dk.Open(ct[datakey.NonceSize:], ct[:datakey.NonceSize], sealContext(row.ID, row.Kid))
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", row.Kid, ErrDataKey)
	}
	priv, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("signingkeys: key %s: private key: %w", row.Kid, err)
	}
	signer, ok := priv.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("signingkeys: key %s: private key of type %T", row.Kid, priv)
	}
	return signer, nil
}
