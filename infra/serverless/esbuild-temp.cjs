'use strict';

const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

// serverless-esbuild zips each function from a folder it makes in the system's temporary folder,
// and its removal of that folder is not recursive and fails silently: every packaging left one
// folder per function behind (71 of about 1 MB a run, and `npm test` packages). It packs in this
// process, which reads TMPDIR at each call (os.tmpdir), so for the length of a packaging the
// temporary folder is one of ours, removed whole after. Listed before serverless-esbuild, so that
// ours runs first on the same hook.
class EsbuildTemp {
  constructor() {
    let dir;
    let was;
    const begin = () => {
      was = process.env.TMPDIR;
      dir = mkdtempSync(join(tmpdir(), 'sls-esbuild-'));
      process.env.TMPDIR = dir;
    };
    const end = () => {
      if (!dir) return;
      if (was === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = was;
      rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    };
    this.hooks = {
      'before:package:createDeploymentArtifacts': begin,
      'after:package:createDeploymentArtifacts': end,
      'before:deploy:function:packageFunction': begin,
      'after:deploy:function:packageFunction': end,
    };
  }
}

module.exports = EsbuildTemp;
