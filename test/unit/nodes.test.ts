import { afterEach, describe, expect, it, vi } from 'vitest';
import { NODES, nodeFromArgs } from '../../infra/local/start/defaults';
import { loadService } from '../../infra/local/start/serverless-config';

describe('the local nodes', () => {
  it('takes --node b (or c) out of the arguments and picks that node; none is Node A', () => {
    const args = ['--node', 'b', 'GET', '/assets'];
    expect(nodeFromArgs(args)).toBe('b');
    expect(args).toEqual(['GET', '/assets']);
    const third = ['GET', '/peers', '--node', 'C'];
    expect(nodeFromArgs(third)).toBe('c');
    expect(third).toEqual(['GET', '/peers']);
    expect(nodeFromArgs(['GET', '/assets'])).toBe('a');
    expect(nodeFromArgs(['GET', '/assets', '--node', 'A'])).toBe('a');
  });

  it('refuses any other --node, naming the three', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation(() => {
      throw new Error('exit');
    });
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      for (const bad of [['--node', 'd'], ['--node'], ['--node', 'constructor']]) {
        expect(() => nodeFromArgs(bad)).toThrow('exit');
      }
      expect(exit).toHaveBeenCalledWith(2);
      expect(error.mock.calls.map(([line]) => line)).toEqual([
        '--node takes a, b or c, not "d"',
        '--node takes a, b or c, not ""',
        '--node takes a, b or c, not "constructor"',
      ]);
    } finally {
      exit.mockRestore();
      error.mockRestore();
    }
  });

  it('gives the three nodes the ports and ILP addresses the walkthroughs use, none shared', () => {
    expect(NODES.a.ports).toMatchObject({ admin: 3001, openPayments: 3002, connector: 3004, authServer: 3006 });
    expect(NODES.b.ports).toMatchObject({ admin: 4001, openPayments: 4002, connector: 4004, authServer: 4006 });
    expect(NODES.c.ports).toMatchObject({ console: 6000, admin: 6001, openPayments: 6002, fsp: 6003, connector: 6004, authServer: 6006 });
    const all = Object.values(NODES).flatMap((node) => Object.values(node.ports));
    expect(new Set(all).size).toBe(all.length);
    expect(Object.values(NODES).map((node) => node.ilpAddress)).toEqual(['test.node-a', 'test.node-b', 'test.node-c']);
    expect(NODES.c.dataDir).toBe('.local/node-c');
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
