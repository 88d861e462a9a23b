/**
 * OpenPGP material for the /v1 routes, made once with OpenPGP.js 6 (a Curve25519 key without a
 * passphrase, dated 2025-01-01) and kept here so that the fuzz corpus is the same on every run:
 * /v1/generate makes a fresh random key each time. Test data only; the key protects nothing.
 */
export const V1_FIXTURES = {
  /** The public key (Fuzz Fixture <fuzz@example.invalid>). */
  publicKey:
    '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nxiYEZ3SFgBu6g/rpRHoWIbqeIZ7pz7KMRR0y8oeXbCZu7IbiSV/+Z80jRnV6\neiBGaXh0dXJlIDxmdXp6QGV4YW1wbGUuaW52YWxpZD7CwA8EExsKAIUFgmd0\nhYADCwkHCRAJpqP+PoBtCUUUAAAAAAAcACBzYWx0QG5vdGF0aW9ucy5vcGVu\ncGdwanMub3JnLt+o8fXCO4fcmwC4PAstG0XoPEmNNsVd21ogkkn75iwFFQoI\nDgwEFgACAQIZAQKbAwIeARYhBGwUAUBLd4FBlHxo2gmmo/4+gG0JAAABLUPD\n3fMshwryS9N44C+LkrSoeAuKUJDeSpkQzs8azOgJTOvtDhnTNEJ7BqhpB83W\nFBy2QPjgWkXriETp2QXNZgrOJgRndIWAGQCW48mV12r3Xci+V0ZtoLMgS2ri\nio7JtJpIZsNGzpJiwroEGBsKAHAFgmd0hYAJEAmmo/4+gG0JRRQAAAAAABwA\nIHNhbHRAbm90YXRpb25zLm9wZW5wZ3Bqcy5vcmePTk5/fnmSyEhJ6IGqExHy\nTgGFi6p1b2P7hIvLoWQJ7wKbDBYhBGwUAUBLd4FBlHxo2gmmo/4+gG0JAADk\nTup9qH97eN1D9NsU9nrFQ2Hyp4aW+yZgEj6BZD1KtJyF2V1zgFDv8/Akhh/R\njHv1zE4wO72JoRVcwaJllIk1vwM=\n=U+4h\n-----END PGP PUBLIC KEY BLOCK-----\n',
  /** Its private key, unlocked. */
  privateKey:
    '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nxUkEZ3SFgBu6g/rpRHoWIbqeIZ7pz7KMRR0y8oeXbCZu7IbiSV/+ZwAO/baT\n7W56JJVa43TPPRKBtaqYT2JIIGnkVli6FUIDYw60zSNGdXp6IEZpeHR1cmUg\nPGZ1enpAZXhhbXBsZS5pbnZhbGlkPsLADwQTGwoAhQWCZ3SFgAMLCQcJEAmm\no/4+gG0JRRQAAAAAABwAIHNhbHRAbm90YXRpb25zLm9wZW5wZ3Bqcy5vcmcu\n36jx9cI7h9ybALg8Cy0bReg8SY02xV3bWiCSSfvmLAUVCggODAQWAAIBAhkB\nApsDAh4BFiEEbBQBQEt3gUGUfGjaCaaj/j6AbQkAAAEtQ8Pd8yyHCvJL03jg\nL4uStKh4C4pQkN5KmRDOzxrM6AlM6+0OGdM0QnsGqGkHzdYUHLZA+OBaReuI\nROnZBc1mCsdJBGd0hYAZAJbjyZXXavddyL5XRm2gsyBLauKKjsm0mkhmw0bO\nkmIAUN2tQp0gYRLXZaA0SQdHqh6EgkD3FfDZ30AdsO8gpVwO0sK6BBgbCgBw\nBYJndIWACRAJpqP+PoBtCUUUAAAAAAAcACBzYWx0QG5vdGF0aW9ucy5vcGVu\ncGdwanMub3Jnj05Of355kshISeiBqhMR8k4BhYuqdW9j+4SLy6FkCe8CmwwW\nIQRsFAFAS3eBQZR8aNoJpqP+PoBtCQAA5E7qfah/e3jdQ/TbFPZ6xUNh8qeG\nlvsmYBI+gWQ9SrSchdldc4BQ7/PwJIYf0Yx79cxOMDu9iaEVXMGiZZSJNb8D\n=4zHc\n-----END PGP PRIVATE KEY BLOCK-----\n',
  /** "fuzz fixture message", encrypted to the key. */
  encrypted:
    '-----BEGIN PGP MESSAGE-----\n\nwVQDANJ7D/q2LxkZczduXTkUanxLv2dbUApMbP+6sD1ld5oRzyviMRCcLU8p\nCRcqZzpOpyRAS8Wa1bgOclDLofhTTxDX3jgXpoyxV9ftJALaM5rtkgDSRQHi\nWKPNGq2ZwpYFXSJ+ZNtUPrcTELvrgmyKm5FDsmLHSHiJVuxvGBdjS/TFre+1\nsmHAYkMxs8Xu+DdvRgPtPPZd/RW6mA==\n=j8J6\n-----END PGP MESSAGE-----\n',
  /** "fuzz symmetric message", encrypted for the passphrase SYMMETRIC_PASSPHRASE. */
  symmetric:
    '-----BEGIN PGP MESSAGE-----\n\nwy4ECQMIPPMwut3aj8jgwUeFP74XA2fNo3NI7GaGaY17kn6trVZDP8/RFqbu\nNOU10kcBdj0JjJrCczUDanCmu8Zn05w88NyZSvYl2kHDe23V3p2+GS2fxwp2\nFc4N3K2T7cvG9vcQbGHuyYXBZ4OCyIJy3KxBouwz+Q==\n=324l\n-----END PGP MESSAGE-----\n',
  /** "fuzz signed text", cleartext-signed by the key. */
  cleartext:
    '-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nfuzz signed text\n-----BEGIN PGP SIGNATURE-----\n\nwrcEARsKAG0Fgmd0hYEJEAmmo/4+gG0JRRQAAAAAABwAIHNhbHRAbm90YXRp\nb25zLm9wZW5wZ3Bqcy5vcmcEdj/hhvGKXKFD757FF+VbAeeoiCKOPDKYFjen\nCRvxGhYhBGwUAUBLd4FBlHxo2gmmo/4+gG0JAABDhh6nean75hk+8b8zjeA+\nBG9eJaqlNTYELcnuqeUTG9fc8gQ1+IXC8mn/LMdeNTi5jganUygbpD6aSrg9\nc7Z32w0=\n=zYe5\n-----END PGP SIGNATURE-----\n',
  /** A detached signature of DETACHED_TEXT by the key. */
  detached:
    '-----BEGIN PGP SIGNATURE-----\n\nwrcEARsKAG0Fgmd0hYEJEAmmo/4+gG0JRRQAAAAAABwAIHNhbHRAbm90YXRp\nb25zLm9wZW5wZ3Bqcy5vcmc4IS0WiSBQZrdGiEkvfC8zXK/hW/pO9Fqogm7j\nhYEahBYhBGwUAUBLd4FBlHxo2gmmo/4+gG0JAACyCxxw5HpK6AR54f4umoAp\n2DdRb2doQKhlvHdJ1XRpFZBAgvuoI36JvP0Gf2p0TXxkf6URYPlb0afQCDWm\nzOV6Ugk=\n=/2cW\n-----END PGP SIGNATURE-----\n',
} as const;

export const SYMMETRIC_PASSPHRASE = 'fuzz-passphrase';
export const DETACHED_TEXT = 'fuzz detached text';
