import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
/** Every file that ships (the build's inputs) and every file that checks them. */
const folders = ['bin', 'src', 'config', 'schemas', 'jobs', 'scripts', 'test', 'bench'];

const sources = folders.flatMap((folder) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs|js|cjs)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name)),
);

/** The lines of the sources that match `pattern`, as `path:line: text`. */
function linesMatching(pattern: RegExp): string[] {
  return sources.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        pattern.test(line) ? [`${relative(root, file)}:${index + 1}: ${line.trim()}`] : [],
      ),
  );
}

describe('the dependencies are used through their public entry points', () => {
  it('no module imports or requires a lib/ path of a package (a private module, gone in any release)', () => {
    // from, import() and require() of a path under a package's lib/ folder, scoped packages too.
    const deep = /(from\s+|import\(\s*|require\(\s*)['"](@[\w.-]+\/)?[\w.-]+\/lib\//;
    expect(linesMatching(deep)).toEqual([]);
  });

  it("no module sets V8's flags: a flag worth having is the image's, documented (docs/deploy.md)", () => {
    expect(
      linesMatching(/setFlagsFromString|v8\.setFlags/).filter((line) => !line.startsWith('test/')),
    ).toEqual([]);
  });

  it("no module patches a dependency's prototype", () => {
    expect(linesMatching(/Object\.assign\([\w.]+\.prototype|\.prototype\.\w+\s*=/)).toEqual([]);
  });

  it("generates code in one module only: the typed columns' walker (walker-source.ts, property-tested)", () => {
    const generated = linesMatching(/new Function\(|(^|[^.\w])eval\(/).filter(
      (line) => !line.startsWith('test/'),
    );
    expect(generated.map((line) => line.split(':')[0])).toEqual(['src/store/columns/walker-source.ts']);
  });

  it('undici, the HTTP client, takes any 7.x release an update brings (a caret range, not a pin)', () => {
    const declared = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies.undici;
    expect(declared).toMatch(/^\^7\.\d+\.\d+$/);
  });
});
