/**
 * A test certificate authority for the webhook receiver, made with openssl: the daemon trusts it
 * through Node's standard NODE_EXTRA_CA_CERTS, and the receiver serves a leaf for localhost and
 * 127.0.0.1 signed by it. Nothing here is trusted outside the trial.
 */
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface TestCa {
  /** The CA certificate file, for NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  readonly cert: string;
  readonly key: string;
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

export async function createTestCa(dir: string): Promise<TestCa> {
  const openssl = (...args: string[]) => run("openssl", args, { cwd: dir });
  await writeFile(
    path.join(dir, "leaf.ext"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n" +
      "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
  );
  await openssl(
    ...["req", "-x509", ...EC, "-days", "2", "-subj", "/CN=Social Harness Chaos CA"],
    ...["-keyout", "ca.key", "-out", "ca.pem"],
    ...["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"],
  );
  await openssl("req", ...EC, "-subj", "/CN=localhost", "-keyout", "leaf.key", "-out", "leaf.csr");
  await openssl(
    ...["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial"],
    ...["-days", "2", "-out", "leaf.pem", "-extfile", "leaf.ext"],
  );
  return {
    caFile: path.join(dir, "ca.pem"),
    cert: await readFile(path.join(dir, "leaf.pem"), "utf8"),
    key: await readFile(path.join(dir, "leaf.key"), "utf8"),
  };
}
