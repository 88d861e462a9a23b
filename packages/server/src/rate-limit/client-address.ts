/**
 * The rate-limit key of a client address: one key per client however its address is written.
 *
 * - IPv4 is kept as written by the socket or a proxy (`10.6.6.6`), with a `:port` suffix removed.
 * - IPv4-mapped IPv6 (`::ffff:10.6.6.6`, `::ffff:a06:606`) is the IPv4 address it carries.
 * - Other IPv6 is cut to its first `ipv6PrefixLength` bits (`2001:db8:0:0::/64`): one subscriber
 *   gets a whole /64, so keying by /128 would give one client 2^64 buckets.
 * - Anything else (`garbage`, `010.006.006.006`, whose octets some parsers read as octal) is no
 *   address: the caller falls back to the hop that reported it.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_IPV6 = /^\[([^\]]+)\](?::\d{1,5})?$/;

/** The key of `address`, or undefined when it is not an IP address. */
export function addressKey(address: string, ipv6PrefixLength: number): string | undefined {
  if (isIPv4(address)) return address;
  const ipv4WithPort = IPV4_WITH_PORT.exec(address);
  if (ipv4WithPort !== null) return isIPv4(ipv4WithPort[1]!) ? ipv4WithPort[1] : undefined;
  const unbracketed = BRACKETED_IPV6.exec(address)?.[1] ?? address;
  // A zone (`fe80::1%eth0`) names the local interface, not the client.
  const zoneAt = unbracketed.indexOf('%');
  const ipv6 = zoneAt === -1 ? unbracketed : unbracketed.slice(0, zoneAt);
  if (!isIPv6(ipv6)) return undefined;
  const groups = ipv6Groups(ipv6);
  if (isIpv4Mapped(groups)) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${maskGroups(groups, ipv6PrefixLength)
    .map((group) => group.toString(16))
    .join(':')}/${ipv6PrefixLength}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function isIpv4Mapped(groups: number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}

function maskGroups(groups: number[], prefixLength: number): number[] {
  return groups.map((group, index) => {
    const bitsKept = Math.min(16, Math.max(0, prefixLength - index * 16));
    return bitsKept === 16 ? group : group & ((0xffff << (16 - bitsKept)) & 0xffff);
  });
}

/**
 * The client address of a request Fastify answered before routing it (a malformed URL), which
 * comes without Fastify's trust-proxy getters: the X-Forwarded-For hops read from the right while
 * the hop that reported them is a trusted proxy, as Fastify does for routed requests.
 */
export class ForwardedAddress {
  readonly #trusted: BlockList | undefined;

  constructor(trustedProxyCidrs: readonly string[]) {
    if (trustedProxyCidrs.length === 0) return;
    this.#trusted = new BlockList();
    for (const cidr of trustedProxyCidrs) {
      const [address = '', prefix] = cidr.split('/');
      const type = isIPv6(address) ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.#trusted.addAddress(address, type);
      else this.#trusted.addSubnet(address, Number(prefix), type);
    }
  }

  /** The hops from the socket peer outwards, ending at the first one not trusted to forward. */
  hops(socketAddress: string, forwardedFor: string | string[] | undefined): string[] {
    const hops = [socketAddress];
    if (this.#trusted === undefined || forwardedFor === undefined) return hops;
    const forwarded = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((hop) => hop.trim())
      .reverse();
    for (const hop of forwarded) {
      if (!this.#isTrusted(hops[hops.length - 1]!)) break;
      hops.push(hop);
    }
    return hops;
  }

  #isTrusted(address: string): boolean {
    // A dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d; the trusted list names it as a.b.c.d.
    const unmapped = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
    const type = isIPv4(unmapped) ? 'ipv4' : isIPv6(unmapped) ? 'ipv6' : undefined;
    return type !== undefined && this.#trusted!.check(unmapped, type);
  }
}

/**
 * The key of the client at the end of `hops` (socket peer first, as Fastify's `request.ips`): the
 * last hop that is an address, so that a forwarded value that is not one counts against the proxy
 * that sent it rather than a fresh bucket.
 */
export function clientKeyOfHops(hops: readonly string[], ipv6PrefixLength: number): string {
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const key = addressKey(hops[index]!, ipv6PrefixLength);
    if (key !== undefined) return key;
  }
  return 'unknown';
}
