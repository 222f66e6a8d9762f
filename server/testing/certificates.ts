import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * X.509 certificates for tests that need real TLS (a stand-in for Apple Pay's merchant validation asking for the
 * merchant's client certificate), made with the system's `openssl`: a certificate authority, and certificates it signs
 * for a server name or a client subject. Keys are PEM (PKCS #8), unencrypted.
 */

export interface TestCertificate {
  readonly certificate: string;
  readonly privateKey: string;
}

export interface TestAuthority extends TestCertificate {
  /** A certificate signed by this authority: `dns` names a server (subjectAltName), else a client certificate. */
  issue(subject: string, options?: { readonly dns?: string; readonly days?: number; readonly rsa?: boolean }): TestCertificate;
}

function inTemporaryDirectory<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-certificates-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const openssl = (dir: string, args: readonly string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

function newKey(dir: string, file: string, rsa: boolean): void {
  openssl(dir, rsa ? ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', file] : ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file]);
}

/** A new certificate authority (`subject` such as `/CN=Test root`), valid for ten years. */
export function testAuthority(subject: string): TestAuthority {
  const authority = inTemporaryDirectory((dir) => {
    newKey(dir, 'ca.key', false);
    openssl(dir, ['req', '-x509', '-new', '-key', 'ca.key', '-subj', subject, '-days', '3650', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', 'ca.pem']);
    return { certificate: readFileSync(join(dir, 'ca.pem'), 'utf8'), privateKey: readFileSync(join(dir, 'ca.key'), 'utf8') };
  });
  return {
    ...authority,
    issue: (leafSubject, options = {}) =>
      inTemporaryDirectory((dir) => {
        writeFileSync(join(dir, 'ca.pem'), authority.certificate);
        writeFileSync(join(dir, 'ca.key'), authority.privateKey);
        newKey(dir, 'leaf.key', options.rsa ?? false);
        openssl(dir, ['req', '-new', '-key', 'leaf.key', '-subj', leafSubject, '-out', 'leaf.csr']);
        const extensions = options.dns
          ? `basicConstraints=CA:FALSE\nsubjectAltName=DNS:${options.dns}\nextendedKeyUsage=serverAuth\n`
          : 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n';
        writeFileSync(join(dir, 'leaf.ext'), extensions);
        openssl(dir, ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', String(options.days ?? 365), '-extfile', 'leaf.ext', '-out', 'leaf.pem']);
        return { certificate: readFileSync(join(dir, 'leaf.pem'), 'utf8'), privateKey: readFileSync(join(dir, 'leaf.key'), 'utf8') };
      }),
  };
}
