import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadService } from '../../../infra/local/start/serverless-config';
import { allRoutes } from '../../../lib/api/routes';
import { BACKSTOP_MS, bundleOf, loadPackaged, ofType, packagedBy, packagedDir, STAGE } from './packaged';

// What serverless packaged for each function: a bundle each, nothing left behind, only the clients it calls, and under its size budget.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('the bundles', () => {
  const bundle = (fn: string) => bundleOf(fn).code;

  it('has a nodejs22.x Lambda and a bundle for every function in serverless.yml', () => {
    const functions = ofType('AWS::Lambda::Function');
    const names = loadService(STAGE).functions.map((f) => f.name);
    expect(functions).toHaveLength(names.length);
    for (const [, fn] of functions) expect(fn.Properties.Runtime).toBe('nodejs22.x');
    const zips = readdirSync(packagedDir).filter((f) => f.endsWith('.zip'));
    expect(zips.sort()).toEqual(names.map((n) => `${n}.zip`).sort());
  });

  it('leaves nothing in the temporary folder: no folder a function was zipped from', () => {
    expect(packagedBy).toBeGreaterThan(0);
    // serverless-esbuild names each "<function>-<its process's pid>-<time>-<8 hex>" (infra/serverless/esbuild-temp.cjs).
    const left = readdirSync(tmpdir()).filter((name) => new RegExp(`^[A-Za-z0-9]+-${packagedBy}-\\d+-[0-9a-f]{8}$`).test(name));
    expect(left).toEqual([]);
  });

  it('carry the SQS and EventBridge clients only where a function calls them', () => {
    const carries = (fn: string) => ({ sqs: bundle(fn).includes('AmazonSQS'), eventBridge: bundle(fn).includes('AWSEvents') });
    const needs: Record<string, { sqs: boolean; eventBridge: boolean }> = {
      outboxRelay: { sqs: true, eventBridge: true },
      paymentsWorker: { sqs: true, eventBridge: false }, // backs off a failed message's visibility
      webhooksDeliver: { sqs: true, eventBridge: false }, // and chains waits longer than 15 minutes
    };
    for (const fn of loadService(STAGE).functions.map((f) => f.name)) expect(carries(fn), fn).toEqual(needs[fn] ?? { sqs: false, eventBridge: false });
  });

  it('stay under 460 KB each (540 KB for the Admin routes, 560 KB for the console and POST /peers/by-url, 660 KB for the Open Payments servers and the connector, 1000 KB for the STREAM senders, quoters, receivers and app payments, 1400 KB for /graphql), with the SDK bundled from its ES modules, credentials from the environment, and traces without the X-Ray SDK', () => {
    // Every function carries its own tracing (lib/platform/tracing.ts, a few KB: no X-Ray SDK, whose
    // cls-hooked tracked every async resource) and Metrics (13 KB). The Admin routes carry the
    // Secrets Manager client (the Admin API secret is read from it, not from the environment) and the
    // route table (lib/api/routes/: every route's schemas and text, about 30 KB; the largest Admin
    // bundle was 36 bytes under 510 KB when peering by URL's schemas and errors added 2.6 KB, and peers' `routes` 0.3 KB), AWS's JWT verifier
    // (17 KB: each verifies a console operator's token itself), and most of them the bounded fetch
    // (lib/platform/net/fetch.ts and its address rule, about 6 KB: a rates pull, a peer's endpoint check); the
    // largest (assetsLiquidityWithdraw) was 49 bytes under 510 KB when ENABLE_SPSP_PAYMENT_POINTERS came, and
    // every setting adds about 90 bytes to every function (its line in the schema and in the node). The
    // Open Payments servers also carry HTTP message signatures (jose alone is 90 KB) and STREAM; the
    // functions that quote and send to other nodes carry the Open Payments client and pay too. The
    // console carries its page (Preact, uPlot and its own code: about 120 KB), the route table and
    // the Lambda client. /graphql's function serves every operation Rafiki's Admin API maps to, so
    // it carries what the Admin routes and the quoters do, and graphql-js (about 250 KB).
    const budgetKb: Record<string, number> = {
      console: 560,
      peersByUrl: 560, // an Admin route that also calls another node (the bounded fetch's client) and makes a peer
      adminGraphql: 1400,
      authServer: 660,
      authIntrospect: 660,
      authInteraction: 660,
      openPaymentsIncomingPayments: 660,
      openPaymentsWalletAddress: 660, // SPSP's STREAM connections
      ilpConnector: 660,
      // POST /quotes was 21 bytes under 980 KB before peering by URL's schemas, errors and settings (2.6 KB).
      quotesCreate: 1000,
      receiversCreate: 1000,
      receiversGet: 1000,
      receiversComplete: 1000,
      openPaymentsQuotes: 1000,
      openPaymentsOutgoingPayments: 1000,
      paymentsWorker: 1000,
    };
    const adminFunctions = new Set(allRoutes.map((r) => r.functionName));
    for (const fn of loadService(STAGE).functions.map((f) => f.name)) {
      const { code, map } = bundleOf(fn);
      expect(code.length, fn).toBeLessThan((budgetKb[fn] ?? (adminFunctions.has(fn) ? 540 : 460)) * 1024);
      expect(
        map.sources.filter((source) => /aws-xray-sdk|cls-hooked/.test(source)),
        fn,
      ).toEqual([]);
      expect(code, fn).not.toContain('AWS_WEB_IDENTITY_TOKEN_FILE'); // the SDK's default credential chain is left out
      if (fn !== 'openApi') expect(code, fn).toContain('AWS_XRAY_DAEMON_ADDRESS'); // traced (the static document is not)
      expect(code, fn).not.toContain('credential_process');
    }
  });
});
