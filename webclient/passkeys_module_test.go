package webclient_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/webclient"
)

// passkeysScript checks the conversions of /client/passkeys.js in node,
// which has no PublicKeyCredential: the fallbacks run, then the browser's
// functions are used once they exist. It prints "ok" or throws.
const passkeysScript = `
import * as pk from "./passkeys.mjs";
const eq = (a, b, what) => { if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(what + ": " + JSON.stringify(a) + " != " + JSON.stringify(b)); };
const bytes = (buf) => Array.from(new Uint8Array(buf));
const all = Uint8Array.from({ length: 256 }, (_, i) => i);
for (let n = 0; n <= 256; n += (n < 8 ? 1 : 31)) {
  const part = all.slice(256 - n);
  const text = pk.base64urlEncode(part);
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url: " + text);
  eq(bytes(pk.base64urlDecode(text)), Array.from(part), "round trip of " + n + " bytes");
}
eq(bytes(pk.base64urlDecode("-_8=")), [251, 255], "padding and the url alphabet");
eq(pk.base64urlEncode(new Uint8Array([0, 1, 2, 3]).subarray(1, 3)), "AQI", "a view encodes its own bytes");
eq(pk.supported(), false, "supported without PublicKeyCredential");
eq(await pk.autofillSupported(), false, "autofill without PublicKeyCredential");

const c = pk.creationOptions({ rp: { id: "example.test", name: "x" }, user: { id: "AQID", name: "a@b.c", displayName: "A" },
  challenge: "BAUG", pubKeyCredParams: [{ type: "public-key", alg: -7 }], excludeCredentials: [{ type: "public-key", id: "Bw", transports: ["usb"] }],
  authenticatorSelection: { residentKey: "required", userVerification: "required" }, attestation: "none", timeout: 300000 });
eq(bytes(c.challenge), [4, 5, 6], "challenge"); eq(bytes(c.user.id), [1, 2, 3], "user.id");
eq(bytes(c.excludeCredentials[0].id), [7], "excludeCredentials id"); eq(c.excludeCredentials[0].transports, ["usb"], "transports kept");
eq([c.rp.id, c.user.name, c.attestation, c.timeout, c.authenticatorSelection.residentKey], ["example.test", "a@b.c", "none", 300000, "required"], "other members");
const r = pk.requestOptions({ challenge: "CQ", rpId: "example.test", allowCredentials: [{ type: "public-key", id: "Cg" }], userVerification: "preferred" });
eq([bytes(r.challenge), bytes(r.allowCredentials[0].id), r.rpId, r.userVerification], [[9], [10], "example.test", "preferred"], "request options");
eq(pk.requestOptions({ challenge: "CQ" }).allowCredentials, undefined, "no allowCredentials stays none");

const buf = (...b) => Uint8Array.from(b).buffer;
const created = pk.credentialJSON({ id: "AQ", rawId: buf(1), type: "public-key", authenticatorAttachment: "platform",
  getClientExtensionResults: () => ({ credProps: { rk: true } }),
  response: { clientDataJSON: buf(2), attestationObject: buf(3), getTransports: () => ["internal", "hybrid"],
    getAuthenticatorData: () => buf(4), getPublicKey: () => buf(5), getPublicKeyAlgorithm: () => -7 } });
eq(created, { id: "AQ", rawId: "AQ", type: "public-key", response: { clientDataJSON: "Ag", attestationObject: "Aw", transports: ["internal", "hybrid"],
  authenticatorData: "BA", publicKey: "BQ", publicKeyAlgorithm: -7 }, authenticatorAttachment: "platform", clientExtensionResults: { credProps: { rk: true } } }, "created");
const asserted = pk.credentialJSON({ id: "AQ", rawId: buf(1), type: "public-key", getClientExtensionResults: () => ({}),
  response: { clientDataJSON: buf(2), authenticatorData: buf(3), signature: buf(4), userHandle: buf(5) } });
eq(asserted.response, { clientDataJSON: "Ag", authenticatorData: "Aw", signature: "BA", userHandle: "BQ" }, "asserted");
eq(asserted.authenticatorAttachment, null, "no attachment");
eq(pk.credentialJSON({ toJSON: () => ({ native: true }) }), { native: true }, "toJSON is used when present");

globalThis.PublicKeyCredential = { parseCreationOptionsFromJSON: (j) => ({ parsed: j.challenge }), parseRequestOptionsFromJSON: (j) => ({ parsedGet: j.challenge }) };
eq(pk.creationOptions({ challenge: "AA" }), { parsed: "AA" }, "the browser's parseCreationOptionsFromJSON");
eq(pk.requestOptions({ challenge: "AA" }), { parsedGet: "AA" }, "the browser's parseRequestOptionsFromJSON");
console.log("ok");
`

// TestPasskeysModule runs the conversions of the client's passkeys module
// in node (the browser's own converters are stood in for).
func TestPasskeysModule(t *testing.T) {
	runModuleScript(t, "/client/passkeys.js", "passkeys.mjs", passkeysScript)
}

// runModuleScript writes the library's asset as file beside script and
// runs script in node, which must print "ok".
func runModuleScript(t *testing.T, asset, file, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	var body []byte
	for _, a := range append(webclient.Library(), webclient.Demo()...) {
		if a.Path == asset {
			body = a.Body()
		}
	}
	if body == nil {
		t.Fatalf("no asset %s", asset)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), body, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test.mjs"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "test.mjs")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("node: %v\n%s", err, out)
	}
}
