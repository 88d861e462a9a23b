import type { BatchEntry, CryptoClient } from '@crypto-service/client';
import { EXIT, UsageError, type Command } from '../command.ts';
import { parseCommand } from '../args.ts';
import { connect } from '../connection.ts';
import { readInput } from '../input.ts';

/** The routes that take a batch, by their path after /v2/, and the client method that sends one. */
const ROUTES: Record<string, (client: CryptoClient, items: never[]) => Promise<{ data: BatchEntry<unknown>[] }>> = {
  hash: (client, items) => client.batch.hash(items),
  encrypt: (client, items) => client.batch.encrypt(items),
  decrypt: (client, items) => client.batch.decrypt(items),
  'secretbox/seal': (client, items) => client.batch.secretboxSeal(items),
  'secretbox/open': (client, items) => client.batch.secretboxOpen(items),
  'sealedbox/seal': (client, items) => client.batch.sealedboxSeal(items),
  'sealedbox/open': (client, items) => client.batch.sealedboxOpen(items),
  sign: (client, items) => client.batch.sign(items),
  verify: (client, items) => client.batch.verify(items),
  hmac: (client, items) => client.batch.mac(items),
  'hmac/verify': (client, items) => client.batch.macVerify(items),
  'keys/wrap': (client, items) => client.batch.keyWrap(items),
  'keys/unwrap': (client, items) => client.batch.keyUnwrap(items),
  'pq/encapsulate': (client, items) => client.batch.mlKemEncapsulate(items),
  'pq/decapsulate': (client, items) => client.batch.mlKemDecapsulate(items),
  'pq/dsa/sign': (client, items) => client.batch.pqSign(items),
  'pq/dsa/verify': (client, items) => client.batch.pqVerify(items),
};

const HELP = `Usage: crypto-service batch <route> [file] [options]

Sends many requests to one route in a single call: newline-delimited JSON, one request body per
line (blank lines skipped), from a file or standard input. Each line is exactly the body the
route takes on its own (docs/api.md).

Routes: ${Object.keys(ROUTES).join(', ')}

Output: {"data": [entry, …]} in the order of the lines, each entry {"data": …} (that line's
answer) or {"error": problem}; with --plain, one entry per line (newline-delimited JSON).
Exit status 1 when any entry is an error (the others are printed all the same).

Example:
  printf '{"algorithm":"sha256","data":"a"}\\n{"algorithm":"sha256","data":"b"}\\n' | crypto-service batch hash --plain`;

/** The request bodies of newline-delimited JSON, each an object. */
function parseLines(text: string): object[] {
  const items: object[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      throw new UsageError(`line ${index + 1} is not JSON`);
    }
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw new UsageError(`line ${index + 1} is not a JSON object`);
    items.push(item);
  }
  if (items.length === 0) throw new UsageError('no input: give one JSON request body per line');
  return items;
}

export const batch: Command = {
  name: 'batch',
  summary: 'many requests to one route at once, from newline-delimited JSON',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, {}, 2);
    const route = positionals[0];
    if (route === undefined) throw new UsageError('name the route: crypto-service batch <route>');
    const send = Object.hasOwn(ROUTES, route) ? ROUTES[route] : undefined;
    if (send === undefined)
      throw new UsageError(`no batch form for '${route}'; routes: ${Object.keys(ROUTES).join(', ')}`);
    const items = parseLines((await readInput(positionals[1], context)).toString('utf8'));
    const answer = await send(connect(values, context.env), items as never[]);
    const failed = answer.data.some((entry) => 'error' in entry);
    return {
      json: answer,
      plain: answer.data.map((entry) => JSON.stringify(entry)).join('\n'),
      ...(failed ? { exitCode: EXIT.API_ERROR } : {}),
    };
  },
};
