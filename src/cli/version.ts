// The package's version, for --version and the SARIF tool record.
import { existsSync, readFileSync } from 'node:fs';

/** The package version; package.json is two folders up in src/, three in dist/src/. */
export function version(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    const url = new URL(rel, import.meta.url);
    if (!existsSync(url)) continue;
    const pkg: unknown = JSON.parse(readFileSync(url, 'utf8'));
    if (typeof pkg === 'object' && pkg !== null && 'name' in pkg && pkg.name === 'arefcheck' && 'version' in pkg && typeof pkg.version === 'string') {
      return pkg.version;
    }
  }
  return 'unknown';
}
