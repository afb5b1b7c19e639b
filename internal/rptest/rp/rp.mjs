// A relying party for tests: openid-client driven over stdin and stdout,
// one JSON request per line in, one JSON answer per line out, in order.
// It keeps one client configuration and the PKCE verifier, state and
// nonce of the last authorization it built; it exits when its input ends.
import * as client from 'openid-client';
import { createInterface } from 'node:readline';

let config = null;
let pending = null;

// authFor returns the client authentication method named by auth.
function authFor(auth, secret) {
  switch (auth) {
    case 'none': return client.None();
    case 'post': return client.ClientSecretPost(secret);
    default: return client.ClientSecretBasic(secret);
  }
}

const ops = {
  async discover(req) {
    const metadata = { client_id: req.clientId };
    if (req.idTokenAlg) metadata.id_token_signed_response_alg = req.idTokenAlg;
    config = await client.discovery(new URL(req.issuer), req.clientId, metadata,
      authFor(req.auth, req.clientSecret), { execute: [client.allowInsecureRequests] });
    return { metadata: config.serverMetadata() };
  },
  async authorize(req) {
    const verifier = client.randomPKCECodeVerifier();
    const params = {
      redirect_uri: req.redirectUri, scope: req.scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      state: client.randomState(), nonce: client.randomNonce(),
    };
    if (req.resource) params.resource = req.resource;
    if (req.prompt) params.prompt = req.prompt;
    pending = { verifier, state: params.state, nonce: params.nonce };
    return { url: client.buildAuthorizationUrl(config, params).href, state: params.state, nonce: params.nonce };
  },
  async callback(req) {
    const tokens = await client.authorizationCodeGrant(config, new URL(req.url), {
      pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce,
      idTokenExpected: true,
    }, req.resource ? { resource: req.resource } : undefined);
    return { tokens: { ...tokens }, claims: tokens.claims() };
  },
  async userinfo(req) {
    return { userinfo: await client.fetchUserInfo(config, req.accessToken, req.sub) };
  },
  async refresh(req) {
    const params = {};
    if (req.scope) params.scope = req.scope;
    const tokens = await client.refreshTokenGrant(config, req.refreshToken, params);
    return { tokens: { ...tokens }, claims: tokens.claims() ?? null };
  },
  async revoke(req) {
    await client.tokenRevocation(config, req.token);
    return {};
  },
  async introspect(req) {
    return { introspection: await client.tokenIntrospection(config, req.token) };
  },
  async logout(req) {
    const params = { id_token_hint: req.idTokenHint };
    if (req.postLogoutRedirectUri) params.post_logout_redirect_uri = req.postLogoutRedirectUri;
    if (req.state) params.state = req.state;
    return { url: client.buildEndSessionUrl(config, params).href };
  },
};

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let answer;
  try {
    const req = JSON.parse(line);
    const op = ops[req.op];
    if (!op) throw new Error(`unknown op ${req.op}`);
    answer = await op(req);
  } catch (err) {
    answer = { error: String(err?.message ?? err), code: err?.code ?? null, oauthError: err?.error ?? null, status: err?.status ?? null };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
