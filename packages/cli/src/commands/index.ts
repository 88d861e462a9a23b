/** Every command, in the order the help lists them. */
import type { Command } from '../command.ts';
import { algorithms } from './algorithms.ts';
import { batch } from './batch.ts';
import { decrypt } from './decrypt.ts';
import { encrypt } from './encrypt.ts';
import { hash } from './hash.ts';
import { health } from './health.ts';
import { keysGenerate } from './keys-generate.ts';
import { passwordHash } from './password-hash.ts';
import { passwordVerify } from './password-verify.ts';
import { pqDecapsulate } from './pq-decapsulate.ts';
import { pqEncapsulate } from './pq-encapsulate.ts';
import { pqKeygen } from './pq-keygen.ts';
import { pqSign } from './pq-sign.ts';
import { pqSignKeygen } from './pq-sign-keygen.ts';
import { pqVerify } from './pq-verify.ts';
import { serve } from './serve.ts';
import { sign } from './sign.ts';
import { streamDecrypt } from './stream-decrypt.ts';
import { streamEncrypt } from './stream-encrypt.ts';
import { verify } from './verify.ts';

export const COMMANDS: readonly Command[] = [
  hash,
  keysGenerate,
  encrypt,
  decrypt,
  streamEncrypt,
  streamDecrypt,
  sign,
  verify,
  passwordHash,
  passwordVerify,
  pqKeygen,
  pqEncapsulate,
  pqDecapsulate,
  pqSignKeygen,
  pqSign,
  pqVerify,
  batch,
  algorithms,
  health,
  serve,
];

/** First words that only group commands (`keys generate`, `pq sign`): they are not commands themselves. */
export const GROUPS: ReadonlySet<string> = new Set(
  COMMANDS.filter((command) => command.name.includes(' ')).map((command) => command.name.split(' ')[0] ?? ''),
);
