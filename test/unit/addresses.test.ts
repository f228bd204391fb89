import { describe, expect, it } from 'vitest';
import { blockedRange } from '../../lib/platform/net/addresses';

// Which addresses an outbound fetch of an untrusted URL refuses (lib/platform/net/addresses.ts).
describe('blockedRange', () => {
  it('names loopback, private, link-local, CGNAT and the other non-public IPv4 ranges', () => {
    for (const [ip, range] of [
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['0.0.0.0', 'this network'],
      ['10.1.2.3', 'private (10'],
      ['172.16.0.1', 'private (172.16'],
      ['172.31.255.255', 'private (172.16'],
      ['192.168.1.1', 'private (192.168'],
      ['169.254.169.254', 'link-local'],
      ['100.64.0.1', 'carrier-grade NAT'],
      ['100.127.255.255', 'carrier-grade NAT'],
      ['198.18.0.1', 'benchmarking'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
    ])
      expect(blockedRange(ip), ip).toContain(range);
  });

  it('lets public IPv4 addresses through, including the neighbours of private ranges', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.0', '100.63.255.255', '100.128.0.0', '192.169.0.1', '11.0.0.1', '126.255.255.255'])
      expect(blockedRange(ip), ip).toBeUndefined();
  });

  it('names the IPv6 ranges, and an IPv4 address hidden in an IPv6 one by its IPv4 range', () => {
    for (const [ip, range] of [
      ['::1', 'loopback (::1)'],
      ['[::1]', 'loopback (::1)'],
      ['::', 'unspecified'],
      ['0:0:0:0:0:0:0:1', 'loopback (::1)'],
      ['fd00::1', 'unique local'],
      ['fc12:3456::1', 'unique local'],
      ['fe80::1%eth0', 'link-local (fe80'],
      ['febf::1', 'link-local (fe80'],
      ['fec0::1', 'site-local'],
      ['ff02::1', 'multicast'],
      ['::ffff:127.0.0.1', 'loopback (127.0.0.0/8), as IPv4-mapped'],
      ['::ffff:7f00:1', 'loopback (127.0.0.0/8), as IPv4-mapped'],
      ['::ffff:10.0.0.1', 'private (10.0.0.0/8), as IPv4-mapped'],
      ['::ffff:169.254.169.254', 'link-local (169.254.0.0/16), as IPv4-mapped'],
      ['::127.0.0.1', 'as IPv4-compatible'],
      ['64:ff9b::a9fe:a9fe', 'link-local (169.254.0.0/16), as NAT64'],
      ['2002:7f00:1::1', 'loopback (127.0.0.0/8), as 6to4'],
      // The local-use NAT64 prefix (RFC 8215) reaches the operator's own IPv4 networks, whatever it embeds.
      ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64 (64:ff9b:1::/48)'],
      ['64:ff9b:1:ffff:ff00:808:808::', 'local-use NAT64'],
      ['64:ff9b:1::808:808', 'local-use NAT64'],
    ])
      expect(blockedRange(ip), ip).toContain(range);
  });

  it('lets public IPv6 addresses through, and IPv4 ones hidden in IPv6 when public', () => {
    for (const ip of [
      '2001:4860:4860::8888',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '64:ff9b:2::1',
      '2002:0808:0808::1',
      'fbff::1',
      'fe7f::1',
    ])
      expect(blockedRange(ip), ip).toBeUndefined();
  });

  it('answers undefined for what is not an IP address (a hostname is checked once resolved)', () => {
    for (const host of ['localhost', 'example.com', '127.0.0.1.nip.io', '']) expect(blockedRange(host), host).toBeUndefined();
  });
});
