/** The help texts that are not a single command's: the program's, and a group's (`crypto-service pq`). */
import type { Command } from './command.ts';
import { COMMON_HELP } from './args.ts';

function commandList(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n');
}

export function programHelp(commands: readonly Command[]): string {
  return `Usage: crypto-service <command> [options]

A command-line front end for crypto-service. Every command but 'serve' calls a running service.

Commands:
${commandList(commands)}

'crypto-service <command> --help' describes a command. Results are printed as JSON; --plain
prints the bare value (a digest, a key, a ciphertext) for shell pipelines.

${COMMON_HELP}

Environment:
  CRYPTO_SERVICE_URL     the service's URL (--url wins)
  CRYPTO_API_KEY         API key (--api-key wins)
  CRYPTO_SERVICE_TOKEN   JWT bearer token (--token wins)`;
}

export function groupHelp(group: string, commands: readonly Command[]): string {
  const members = commands.filter((command) => command.name.startsWith(`${group} `));
  return `Usage: crypto-service ${group} <command> [options]

Commands:
${commandList(members)}

'crypto-service ${group} <command> --help' describes a command.`;
}

export function commandHelp(command: Command): string {
  // serve talks to no service, so the common options do not apply to it.
  return command.name === 'serve' ? command.help : `${command.help}\n\n${COMMON_HELP}`;
}
