/**
 * CHANGELOG.md at a release: what is under `## [Unreleased]` becomes the new version's dated
 * section, and an empty `## [Unreleased]` stays above it for the next changes.
 */
const UNRELEASED = /^## \[Unreleased\][^\S\n]*$/m;
const NEXT_SECTION = /^## \[/m;

export class ChangelogError extends Error {
  override readonly name = 'ChangelogError';
}

/** `date` is YYYY-MM-DD. Refuses a changelog without an Unreleased section, or with nothing in it. */
export function releaseChangelog(text: string, version: string, date: string): string {
  const heading = UNRELEASED.exec(text);
  if (heading === null) throw new ChangelogError('CHANGELOG.md has no "## [Unreleased]" section');
  const bodyStart = heading.index + heading[0].length;
  const rest = text.slice(bodyStart);
  const next = NEXT_SECTION.exec(rest);
  const body = next === null ? rest : rest.slice(0, next.index);
  if (body.trim() === '') throw new ChangelogError('CHANGELOG.md has nothing under "## [Unreleased]" to release');
  return `${text.slice(0, bodyStart)}\n\n## [${version}] - ${date}${rest}`;
}
