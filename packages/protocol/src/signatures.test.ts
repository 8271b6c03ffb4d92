import { describe, expect, it } from "vitest";
import {
  checkPublicKey,
  chooseEd25519,
  ed25519,
  openSslEd25519,
  signingKeyFromSeed,
  verifySignature,
  verifySignatureStrict,
} from "./signatures.js";

const hex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

// RFC 8032 §7.1, tests 1 to 3.
const VECTORS = [
  {
    seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    message: "",
    signature:
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  },
  {
    seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "72",
    signature:
      "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  },
  {
    seed: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
    publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    message: "af82",
    signature:
      "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
  },
];

/** What the module chooses with no switch set: libsodium here (the first test says so). */
const libsodium = chooseEd25519({});

describe("ed25519", () => {
  it("signs and verifies in libsodium, where the addon loads", () => {
    expect(ed25519.name).toBe("libsodium");
  });

  it("falls back to OpenSSL where the addon does not load, or when told to", () => {
    const missing = () => {
      throw new Error("Cannot find module 'sodium-native'");
    };
    expect(chooseEd25519({}, missing).name).toBe("openssl");
    expect(chooseEd25519({ SOCIAL_HARNESS_ED25519: "openssl" }).name).toBe("openssl");
    expect(chooseEd25519({}).name).toBe("libsodium");
  });

  const cases = [libsodium, openSslEd25519].flatMap((impl) =>
    VECTORS.map((v, i) => ({ impl, name: impl.name, test: i + 1, v })),
  );
  it.each(cases)("$name matches RFC 8032 test $test, and noble agrees", ({ impl, v }) => {
    const signer = impl.signer(hex(v.seed));
    expect(Buffer.from(signer.publicKey).toString("hex")).toBe(v.publicKey);
    const signature = signer.sign(hex(v.message));
    expect(Buffer.from(signature).toString("hex")).toBe(v.signature);
    expect(impl.verify(signer.publicKey, hex(v.message), signature)).toBe(true);
    expect(impl.verify(signer.publicKey, hex("ff"), signature)).toBe(false);
    expect(verifySignatureStrict(signer.publicKey, hex(v.message), signature)).toBe(true);
  });

  it("verifies a message that is a view into a larger buffer", () => {
    const v = VECTORS[2]!;
    const framed = Buffer.concat([Buffer.from("head"), hex(v.message), Buffer.from("tail")]);
    const message = framed.subarray(4, 4 + hex(v.message).byteLength);
    for (const impl of [libsodium, openSslEd25519])
      expect(impl.verify(hex(v.publicKey), message, hex(v.signature))).toBe(true);
  });

  it.each(VECTORS.map((v, i) => [i + 1, v] as const))("matches RFC 8032 test %i through the module's API", (_, v) => {
    const key = signingKeyFromSeed(hex(v.seed));
    expect(Buffer.from(key.publicKey).toString("hex")).toBe(v.publicKey);
    const signature = key.sign(hex(v.message));
    expect(Buffer.from(signature).toString("hex")).toBe(v.signature);
    expect(verifySignature(key.publicKey, hex(v.message), signature)).toBe(true);
    expect(verifySignatureStrict(key.publicKey, hex(v.message), signature)).toBe(true);
  });

  it("rejects a signature over a different message", () => {
    const v = VECTORS[1]!;
    expect(verifySignature(hex(v.publicKey), hex("73"), hex(v.signature))).toBe(false);
    expect(verifySignatureStrict(hex(v.publicKey), hex("73"), hex(v.signature))).toBe(false);
  });

  it("rejects wrong lengths without throwing", () => {
    const v = VECTORS[0]!;
    expect(verifySignature(hex(v.publicKey), new Uint8Array(), hex(v.signature).subarray(1))).toBe(false);
    expect(verifySignature(hex(v.publicKey).subarray(1), new Uint8Array(), hex(v.signature))).toBe(false);
  });

  it("refuses small-order and invalid public keys", () => {
    const identity = hex("0100000000000000000000000000000000000000000000000000000000000000");
    const orderTwo = hex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
    expect(checkPublicKey(identity)).toMatchObject({ ok: false });
    expect(checkPublicKey(orderTwo)).toMatchObject({ ok: false });
    expect(checkPublicKey(hex("ff".repeat(32)))).toMatchObject({ ok: false });
    expect(checkPublicKey(new Uint8Array(31))).toMatchObject({ ok: false });
    expect(checkPublicKey(hex(VECTORS[0]!.publicKey))).toEqual({ ok: true });
  });

  it("shows why small-order keys are refused: one forgery verifies every message under them", () => {
    const identity = hex("0100000000000000000000000000000000000000000000000000000000000000");
    const forgery = new Uint8Array(64);
    forgery[0] = 1;
    // OpenSSL 3.0 (Node 20) accepts the forgery; OpenSSL 3.5 (Node 24) and libsodium refuse small-order keys.
    const [major = 0, minor = 0] = process.versions.openssl.split(".").map(Number);
    expect(openSslEd25519.verify(identity, hex("01"), forgery)).toBe(major === 3 && minor < 5);
    expect(libsodium.verify(identity, hex("01"), forgery)).toBe(false);
    expect(verifySignature(identity, hex("01"), forgery)).toBe(false);
    expect(verifySignatureStrict(identity, hex("01"), forgery)).toBe(false);
  });
});
