import { describe, expect, it } from 'vitest';
import { NODES, nodeFromArgs } from '../../infra/local/defaults';

describe('the local nodes', () => {
  it('takes --node b out of the arguments and picks Node B; anything else is Node A', () => {
    const args = ['--node', 'b', 'GET', '/assets'];
    expect(nodeFromArgs(args)).toBe('b');
    expect(args).toEqual(['GET', '/assets']);
    expect(nodeFromArgs(['GET', '/assets'])).toBe('a');
    expect(nodeFromArgs(['GET', '/assets', '--node', 'A'])).toBe('a');
  });

  it('gives the two nodes the ports the walkthrough uses, none shared', () => {
    expect(NODES.a.ports).toMatchObject({ admin: 3001, openPayments: 3002, connector: 3004, authServer: 3006 });
    expect(NODES.b.ports).toMatchObject({ admin: 4001, openPayments: 4002, connector: 4004, authServer: 4006 });
    const all = [...Object.values(NODES.a.ports), ...Object.values(NODES.b.ports)];
    expect(new Set(all).size).toBe(all.length);
    expect([NODES.a.ilpAddress, NODES.b.ilpAddress]).toEqual(['test.node-a', 'test.node-b']);
  });
});
