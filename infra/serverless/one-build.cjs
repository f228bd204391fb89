'use strict';

const { createRequire } = require('node:module');

// serverless-esbuild builds each function apart, every build parsing the AWS SDK and the rest again
// (81 builds a package). This plugin makes its bundling one esbuild build of every function's entry
// point, for packaging, deploys and serverless offline: the same options (serverless.yml's
// custom.esbuild, less serverless-esbuild's own), the same files in the same places, each still a
// whole bundle (no code splitting; the JavaScript is the same byte for byte), for a fraction of the
// CPU (docs/deploy.md, "Functions and APIs"). Under serverless offline, a change to the code watched
// builds again in the same build's context. Listed before serverless-esbuild, whose instance it changes.
// What serverless-esbuild takes out of its options before it hands them to esbuild (its bundle.js).
const OWN = [
  ...['concurrency', 'zipConcurrency', 'exclude', 'nativeZip', 'packager', 'packagePath', 'watch', 'keepOutputDirectory'],
  ...['packagerOptions', 'installExtraArgs', 'outputFileExtension', 'outputBuildFolder', 'outputWorkFolder', 'nodeExternals'],
  ...['skipBuild', 'skipRebuild', 'skipBuildExcludeFns', 'stripEntryResolveExtensions', 'disposeContext'],
];

class OneBuild {
  constructor(serverless) {
    let built;
    const dispose = async () => {
      await built?.dispose();
      built = undefined;
    };
    this.hooks = {
      initialize: () => {
        const plugin = serverless.pluginManager.plugins.find((p) => p.constructor.name === 'EsbuildServerlessPlugin');
        const { context } = createRequire(require.resolve('serverless-esbuild'))('esbuild');
        // serverless-esbuild's bundle(): it calls it before it packs, zips or serves what it built.
        plugin.bundle = async () => {
          plugin.prepare();
          const { buildOptions, buildDirPath } = plugin;
          if (buildOptions.exclude.length || buildOptions.outputFileExtension !== '.js')
            throw new serverless.classes.Error(
              "one-build.cjs bundles everything, into .js files: custom.esbuild's exclude and outputFileExtension stay as they are",
            );
          const entries = [...new Set(plugin.functionEntries.map(({ entry }) => entry))];
          if (!built) {
            const options = Object.fromEntries(Object.entries(buildOptions).filter(([name]) => !OWN.includes(name)));
            // Each bundle at <work folder>/.build/<its entry's path>.js, as serverless-esbuild puts it.
            built = await context({ ...options, plugins: plugin.plugins, entryPoints: entries, outbase: '.', outdir: buildDirPath });
          }
          await built.rebuild();
          const bundlePath = (entry) => `${entry.slice(0, entry.lastIndexOf('.'))}.js`;
          plugin.buildCache = Object.fromEntries(entries.map((entry) => [entry, { entry, bundlePath: bundlePath(entry) }]));
          plugin.buildResults = plugin.functionEntries.map(({ entry, func, functionAlias }) => ({ bundlePath: bundlePath(entry), func, functionAlias }));
        };
      },
      'after:package:createDeploymentArtifacts': dispose,
      'after:deploy:function:packageFunction': dispose,
      'after:invoke:local:invoke': dispose,
    };
  }
}

module.exports = OneBuild;
