'use strict';

const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { problemBody } = require('./gateway-responses.cjs');

// `serverless offline` against the running local stack (`npm start`, or `npm run offline`'s own):
// the functions get the environment that stack gives its own (its tables, queues, bus, secrets and
// the emulators' endpoints), which `infra/local/start/stack.ts` writes to `stack-env.json` in the node's
// data folder while it runs. Without this, serverless-offline would hand the functions
// provider.environment as written: a `Ref` as "[object Object]", and AWS's Secrets Manager prefix.
// Only for the `offline` command; packaging and deploys never see it.
const STACK_ENV = 'stack-env.json';

class Offline {
  constructor(serverless) {
    this.hooks = {
      // Before serverless-esbuild's own `initialize`, which reads its work folder (so this plugin
      // comes first in serverless.yml).
      initialize: () => {
        if (serverless.processedInput.commands[0] !== 'offline') return;
        const dataDir = path.resolve(serverless.serviceDir, process.env.LOCAL_DATA_DIR || '.local');
        const file = path.join(dataDir, STACK_ENV);
        if (!fs.existsSync(file)) {
          throw new serverless.classes.Error(
            `No local stack runs for ${dataDir} (${STACK_ENV} is missing): start one with \`npm start\` first ` +
              '(for Node B, `npm run start:node-b`, and LOCAL_DATA_DIR=.local/node-b here; Node C likewise)',
          );
        }
        const stackEnv = JSON.parse(fs.readFileSync(file, 'utf8'));
        const environment = serverless.service.provider.environment;
        for (const [name, value] of Object.entries(stackEnv)) {
          // What the user set wins, but the AWS SDK's settings always point at the stack's emulators.
          environment[name] = name.startsWith('AWS_') ? value : (process.env[name] ?? value);
        }

        // The bundles go to the data folder, apart from `.esbuild/`, which `serverless package`
        // builds in and removes at its end, so that both can run at once. They are CommonJS, as
        // Lambda loads them; the package.json above them says so, since ours says "type": "module".
        const workDir = path.join(dataDir, 'esbuild');
        serverless.service.custom.esbuild.outputWorkFolder = path.relative(serverless.serviceDir, workDir);
        fs.mkdirSync(workDir, { recursive: true });
        fs.writeFileSync(path.join(workDir, 'package.json'), '{ "type": "commonjs" }\n');
      },
      // serverless-offline answers a route it lacks with its own JSON (and every route listed);
      // API Gateway answers the service's problem (../gateway-responses.json, as every API and the
      // local gateway do), so its catch-all's answer is replaced by that one. (Its route table has
      // no switch to quiet it.)
      'after:offline:start:init': () => {
        const offline = serverless.pluginManager.plugins.find((p) => p.constructor.name === 'ServerlessOffline');
        offline
          .internals()
          .getApiGatewayServer()
          .ext('onPreResponse', (request, h) => {
            if (request.route.path !== '/{p*}') return h.continue;
            const body = { ...problemBody('MISSING_AUTHENTICATION_TOKEN'), requestId: randomUUID() };
            return h.response(JSON.stringify(body)).code(body.status).type('application/problem+json');
          });
      },
    };
  }
}

module.exports = Offline;
