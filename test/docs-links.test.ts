import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The README is the front door and docs/ holds the rest (issue 30): every relative link and #anchor
 * in them must lead somewhere, every docs page must be reachable from the README, and the README
 * must stay short. Anchors follow GitHub's rule, since that is where people read these files.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const README_MAX_BYTES = 25_000;

/** GitHub's heading anchor: lowercase, punctuation dropped (hyphens and underscores kept), spaces to '-'. */
function githubSlug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The lines of a Markdown text outside fenced code blocks, whose '#' lines are shell comments, not headings. */
function proseLines(text: string): string[] {
  let fenced = false;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) out.push(line);
  }
  return out;
}

/** The anchors of a Markdown text's headings; a repeated heading gets -1, -2, ... as on GitHub. */
function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = githubSlug(m[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Inline link targets of a Markdown text, outside code blocks and code spans. */
function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) targets.push(m[1]!);
  }
  return targets;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/**
 * What is wrong with the relative links of `file` (a path under `root`): a target file that does
 * not exist, or an anchor that no heading of the target Markdown file has.
 */
function brokenLinks(root: string, file: string, read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8')): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(read(file))) {
    if (isExternal(target)) continue;
    const hash = target.indexOf('#');
    const pathPart = hash < 0 ? target : target.slice(0, hash);
    const anchor = hash < 0 ? undefined : target.slice(hash + 1);
    const resolved = pathPart ? path.normalize(path.join(path.dirname(file), decodeURIComponent(pathPart))) : file;
    if (resolved.startsWith('..') || !fs.existsSync(path.join(root, resolved))) {
      problems.push(`${file}: ${target}: no file ${resolved}`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(read(resolved)).has(anchor)) {
      problems.push(`${file}: ${target}: ${resolved} has no heading #${anchor}`);
    }
  }
  return problems;
}

const docsPages = () =>
  fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => path.join('docs', f));

describe('README and docs/', () => {
  it(`keeps README.md at most ${README_MAX_BYTES} bytes`, () => {
    expect(fs.statSync(path.join(ROOT, 'README.md')).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('has no relative link or anchor that leads nowhere', () => {
    const problems = ['README.md', ...docsPages()].flatMap((f) => brokenLinks(ROOT, f));
    expect(problems).toEqual([]);
  });

  it('reaches every docs page from the README by links', () => {
    const reached = new Set<string>(['README.md']);
    const queue = ['README.md'];
    while (queue.length > 0) {
      const file = queue.shift()!;
      for (const target of linkTargets(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
        const pathPart = target.split('#')[0]!;
        if (isExternal(target) || !pathPart.endsWith('.md')) continue;
        const next = path.normalize(path.join(path.dirname(file), pathPart));
        if (!reached.has(next) && fs.existsSync(path.join(ROOT, next))) {
          reached.add(next);
          queue.push(next);
        }
      }
    }
    expect(docsPages().filter((p) => !reached.has(p))).toEqual([]);
  });
});

describe('the link check itself', () => {
  it('makes anchors as GitHub does', () => {
    expect(githubSlug('The default build (`make data`, or `make run` on a first start)')).toBe(
      'the-default-build-make-data-or-make-run-on-a-first-start',
    );
    expect(githubSlug('Worked example: Chicago at 2 °C against 1981-2010')).toBe('worked-example-chicago-at-2-c-against-1981-2010');
    expect(githubSlug('Areas (`BENCH_ONLY=area`)')).toBe('areas-bench_onlyarea');
    expect(githubSlug("Chicago's 1-in-20-year daily rainfall")).toBe('chicagos-1-in-20-year-daily-rainfall');
    expect([...headingAnchors('# A\n\n## A\n\n```sh\n# not a heading\n```\n### A\n')]).toEqual(['a', 'a-1', 'a-2']);
  });

  it('finds a missing file, a missing anchor and ignores code', () => {
    const files: Record<string, string> = {
      'README.md': '# Top\n\nSee [here](#top), [gone](#nowhere), [page](docs/api.md#the-api-in-brief), [bad page](docs/nope.md).\n' +
        '`[not a link](#x)`\n```md\n[in code](#y)\n```\n[web](https://example.org/#z)\n',
      'docs/api.md': '# API guide\n\nBack to [the top](../README.md#top) and [a lost one](../README.md#lost).\n',
    };
    const read = (f: string) => files[f] ?? fs.readFileSync(path.join(ROOT, f), 'utf8');
    expect(brokenLinks(ROOT, 'README.md', read)).toEqual([
      'README.md: #nowhere: README.md has no heading #nowhere',
      'README.md: docs/api.md#the-api-in-brief: docs/api.md has no heading #the-api-in-brief',
      'README.md: docs/nope.md: no file docs/nope.md',
    ]);
    expect(brokenLinks(ROOT, 'docs/api.md', read)).toEqual(['docs/api.md: ../README.md#lost: README.md has no heading #lost']);
  });
});
