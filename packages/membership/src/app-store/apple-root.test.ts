import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APPLE_ROOT_CA_G3_SHA256, appleRootCaG3 } from './apple-root.js';

describe('Apple Root CA - G3', () => {
  it('is the certificate Apple publishes: the committed .cer, its SHA-256 fingerprint, the embedded copy', () => {
    const file = readFileSync(new URL('../../certs/AppleRootCA-G3.cer', import.meta.url));
    const certificate = new X509Certificate(file);
    expect(certificate.fingerprint256).toBe(APPLE_ROOT_CA_G3_SHA256);
    expect(certificate.subject).toContain('CN=Apple Root CA - G3');
    expect(certificate.ca).toBe(true);
    expect(appleRootCaG3().equals(file)).toBe(true);
  });
});
