import { afterEach, describe, expect, it, vi } from 'vitest';
import { NODES, nodeFromArgs } from '../../infra/local/start/defaults';
import { loadService } from '../../infra/local/start/serverless-config';

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

  afterEach(() => vi.unstubAllEnvs());

  it("gives serverless.yml's local stage Node A's ILP address and URLs, and no other stage a default for them", () => {
    const required = ['ILP_ADDRESS', 'WALLET_ADDRESS_URL', 'AUTH_SERVER_URL'];
    for (const name of required) vi.stubEnv(name, undefined);
    const settings = (stage: string) => Object.fromEntries(required.map((name) => [name, loadService(stage).environment[name]]));
    expect(settings('local')).toEqual({
      ILP_ADDRESS: NODES.a.ilpAddress,
      WALLET_ADDRESS_URL: `http://localhost:${NODES.a.ports.openPayments}`,
      AUTH_SERVER_URL: `http://localhost:${NODES.a.ports.authServer}`,
    });
    expect(settings('ci')).toEqual({ ILP_ADDRESS: undefined, WALLET_ADDRESS_URL: undefined, AUTH_SERVER_URL: undefined });
    vi.stubEnv('ILP_ADDRESS', 'test.mine');
    expect(settings('local').ILP_ADDRESS).toBe('test.mine');
  });
});
