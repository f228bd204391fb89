'use strict';

// The esbuild plugins of serverless-esbuild (serverless.yml, custom.esbuild.plugins).
const { consolePagePlugin } = require('./console-page.cjs');

module.exports = [consolePagePlugin];
