/**
 * The signature header: `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`. Unknown members are ignored so
 * that a sender can add schemes later; several v1 values let a sender sign with an old and a new
 * key while receivers rotate.
 */
export const DEFAULT_SIGNATURE_HEADER = 'crypto-service-signature';

/** More v1 values than any rotation needs; a cap so that one request cannot cost many verifications. */
export const MAX_SIGNATURES = 8;

export interface ParsedSignatureHeader {
  timestamp: number;
  signatures: string[];
}

const TIMESTAMP = /^\d{1,12}$/;
const HEX = /^(?:[0-9a-f]{2})+$/;

/** The timestamp and the v1 signatures, or undefined for a header that is not of the scheme. */
export function parseSignatureHeader(header: string): ParsedSignatureHeader | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const member of header.split(',')) {
    const separator = member.indexOf('=');
    if (separator < 0) return undefined;
    const name = member.slice(0, separator).trim();
    const value = member.slice(separator + 1).trim();
    if (name === 't') {
      if (timestamp !== undefined || !TIMESTAMP.test(value)) return undefined;
      timestamp = Number(value);
    } else if (name === 'v1') {
      if (!HEX.test(value.toLowerCase())) return undefined;
      signatures.push(value.toLowerCase());
    }
  }
  if (timestamp === undefined || signatures.length === 0 || signatures.length > MAX_SIGNATURES) return undefined;
  return { timestamp, signatures };
}

export function formatSignatureHeader(timestamp: number, signatures: readonly string[]): string {
  return [`t=${timestamp}`, ...signatures.map((signature) => `v1=${signature}`)].join(',');
}
