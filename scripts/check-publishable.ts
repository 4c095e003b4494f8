/**
 * prepublishOnly — refuse to publish the main package unless `napi prepublish` has wired every
 * platform package into optionalDependencies at this version (the release workflow runs it).
 * Published without them, every install would fall back to the TypeScript core, silently.
 */
import { releaseOptionalDependencies } from './packaging/pack';
import { rootManifest } from './packaging/paths';

export function publishProblems(): string[] {
  const declared = rootManifest().optionalDependencies ?? {};
  return Object.entries(releaseOptionalDependencies())
    .filter(([name, version]) => declared[name] !== version)
    .map(([name, version]) => `optionalDependencies.${name} is ${JSON.stringify(declared[name])}, expected "${version}"`);
}

if (require.main === module) {
  const problems = publishProblems();
  if (problems.length > 0) {
    console.error(
      `nemo-lens is not ready to publish:\n- ${problems.join('\n- ')}\n` +
        'Publish through the release workflow (.github/workflows/release.yml), which runs `napi prepublish -t npm` first.',
    );
    process.exitCode = 1;
  }
}
