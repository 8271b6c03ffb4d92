/**
 * Certificates for webhook tests, made with openssl: a test CA (which daemons trust through
 * NODE_EXTRA_CA_CERTS) and a leaf for localhost, 127.0.0.1 and ::1; and a self-signed leaf that
 * nobody trusts, for TLS failures.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface TestCa {
  readonly dir: string;
  /** The CA certificate file, for NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  /** A leaf for localhost, 127.0.0.1 and ::1, signed by the CA. */
  readonly cert: string;
  readonly key: string;
  /** A self-signed leaf for the same names that no one trusts. */
  readonly untrusted: { readonly cert: string; readonly key: string };
  remove(): void;
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

export function createTestCa(): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), "sh-ca-"));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  writeFileSync(
    file("leaf.ext"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\n" +
      "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
  );
  openssl(
    "req",
    "-x509",
    ...EC,
    "-days",
    "2",
    "-subj",
    "/CN=Social Harness Test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign",
  );
  openssl("req", ...EC, "-subj", "/CN=localhost", "-keyout", "leaf.key", "-out", "leaf.csr");
  openssl(
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-out",
    "leaf.pem",
    "-extfile",
    "leaf.ext",
  );
  openssl(
    "req",
    "-x509",
    ...EC,
    "-days",
    "2",
    "-subj",
    "/CN=localhost",
    "-keyout",
    "self.key",
    "-out",
    "self.pem",
    "-addext",
    "subjectAltName=DNS:localhost,IP:127.0.0.1",
  );
  return {
    dir,
    caFile: file("ca.pem"),
    cert: readFileSync(file("leaf.pem"), "utf8"),
    key: readFileSync(file("leaf.key"), "utf8"),
    untrusted: { cert: readFileSync(file("self.pem"), "utf8"), key: readFileSync(file("self.key"), "utf8") },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
