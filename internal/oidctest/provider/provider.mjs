// A real OpenID Connect provider for the Go tests (internal/oidctest):
// oidc-provider with its development login and consent pages, one client,
// signing keys the test gives it, and accounts whose claims the test sets.
//
// The configuration comes as JSON in OIDCTEST_CONFIG:
//   {issuer, clientId, clientSecret, redirectUris, jwks, idTokenTTL}
// It listens on 127.0.0.1 at a free port and prints {"port": N} once
// ready. POST /__test/accounts {"sub": "...", "claims": {...}} sets (or
// replaces) the claims of an account; the login page signs in the account
// whose sub is typed as the login.
import Provider from 'oidc-provider';

const cfg = JSON.parse(process.env.OIDCTEST_CONFIG);
const accounts = new Map();

const provider = new Provider(cfg.issuer, {
  clients: [{
    client_id: cfg.clientId,
    client_secret: cfg.clientSecret,
    redirect_uris: cfg.redirectUris,
    response_types: ['code'],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  jwks: cfg.jwks,
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['given_name', 'family_name', 'name'],
  },
  // Put the scopes' claims in the ID token, as Google and most providers do.
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  cookies: { keys: ['oidctest-cookie-key'] },
  ttl: { IdToken: cfg.idTokenTTL || 3600 },
  async findAccount(ctx, sub) {
    const claims = accounts.get(sub);
    if (!claims) return undefined;
    return { accountId: sub, async claims() { return { ...claims, sub }; } };
  },
});

provider.use(async (ctx, next) => {
  if (ctx.path !== '/__test/accounts' || ctx.method !== 'POST') return next();
  const chunks = [];
  for await (const chunk of ctx.req) chunks.push(chunk);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  accounts.set(body.sub, body.claims || {});
  ctx.status = 204;
});

const server = provider.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
