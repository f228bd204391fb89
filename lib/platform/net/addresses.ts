import { isIPv4, isIPv6 } from 'node:net';

// Which IP addresses an outbound fetch of an untrusted URL must not reach: this machine, its
// networks and the cloud's internal ones (metadata at 169.254.169.254, VPC ranges), and the forms
// that hide an IPv4 address in an IPv6 one. Answers the range's name, or undefined for a public
// address (and for anything that is not an IP address).
type Range = [base: number, bits: number, name: string];

const V4: Range[] = [
  [0x00000000, 8, 'this network (0.0.0.0/8)'],
  [0x0a000000, 8, 'private (10.0.0.0/8)'],
  [0x64400000, 10, 'shared, carrier-grade NAT (100.64.0.0/10)'],
  [0x7f000000, 8, 'loopback (127.0.0.0/8)'],
  [0xa9fe0000, 16, 'link-local (169.254.0.0/16)'],
  [0xac100000, 12, 'private (172.16.0.0/12)'],
  [0xc0000000, 24, 'IETF protocol assignments (192.0.0.0/24)'],
  [0xc0a80000, 16, 'private (192.168.0.0/16)'],
  [0xc6120000, 15, 'benchmarking (198.18.0.0/15)'],
  [0xe0000000, 4, 'multicast (224.0.0.0/4)'],
  [0xf0000000, 4, 'reserved or broadcast (240.0.0.0/4)'],
];

function v4Number(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function v4Range(ip: string): string | undefined {
  const n = v4Number(ip);
  return V4.find(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)))?.[2];
}

// The eight 16-bit groups of an IPv6 address (with :: expanded and a dotted IPv4 tail converted).
function v6Groups(ip: string): number[] {
  let text = ip.split('%')[0].toLowerCase();
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const n = v4Number(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const [h, t] = [part(head), part(tail)];
  return tail === undefined ? h : [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

function v6Range(ip: string): string | undefined {
  const g = v6Groups(ip);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified (::)';
  if (zeros(0, 7) && g[7] === 1) return 'loopback (::1)';
  // An IPv4 address inside: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002::/16).
  const inner = (v4: string, form: string) => {
    const range = v4Range(v4);
    return range && `${range}, as ${form}`;
  };
  if (zeros(0, 5) && g[5] === 0xffff) return inner(v4Of(g[6], g[7]), 'IPv4-mapped IPv6');
  if (zeros(0, 6)) return inner(v4Of(g[6], g[7]), 'IPv4-compatible IPv6');
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return inner(v4Of(g[6], g[7]), 'NAT64 IPv6');
  if (g[0] === 0x2002) return inner(v4Of(g[1], g[2]), '6to4 IPv6');
  // RFC 8215's local-use NAT64 prefix: a translator of the operator's own, to any IPv4 address of its networks.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0x1) return 'local-use NAT64 (64:ff9b:1::/48)';
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique local (fc00::/7)';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  if ((g[0] & 0xffc0) === 0xfec0) return 'site-local (fec0::/10)';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast (ff00::/8)';
  return undefined;
}

export function blockedRange(ip: string): string | undefined {
  const bare = ip.replace(/^\[|\]$/g, '');
  if (isIPv4(bare)) return v4Range(bare);
  if (isIPv6(bare)) return v6Range(bare);
  return undefined;
}

export const isIpLiteral = (host: string) => isIPv4(host) || isIPv6(host.replace(/^\[|\]$/g, ''));
