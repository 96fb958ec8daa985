// Reading the project's markdown the way a reader sees it, so tests can run the examples and
// follow the links where the docs keep them rather than where a test expects them.
import { readFileSync } from "node:fs";

export interface FencedBlock {
  /** The fence's language (`sh`, `ts`, `python`, ...), or "" when it names none. */
  lang: string;
  /** What the fence says after its language (`example` in ```json example), trimmed. */
  info: string;
  code: string;
}

interface Line {
  text: string;
  /** Inside a fenced block, fences included. */
  fenced: boolean;
}

function lines(markdown: string): Line[] {
  let open: string | null = null;
  return markdown.split("\n").map((text) => {
    const fence = /^(`{3,}|~{3,})/.exec(text)?.[1];
    if (open === null && fence) {
      open = fence;
      return { text, fenced: true };
    }
    if (open !== null) {
      if (fence && text.trim() === fence && fence.startsWith(open)) open = null;
      return { text, fenced: true };
    }
    return { text, fenced: false };
  });
}

/** The text under a heading (`## Alerts`), up to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
  const level = /^#+/.exec(heading)?.[0].length;
  if (!level) throw new Error(`not a heading: ${heading}`);
  const all = lines(markdown);
  const start = all.findIndex((l) => !l.fenced && l.text.trim() === heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const end = all.findIndex((l, i) => {
    if (i <= start || l.fenced) return false;
    const m = /^(#+)\s/.exec(l.text);
    return m !== null && (m[1]?.length ?? 0) <= level;
  });
  return all
    .slice(start + 1, end < 0 ? undefined : end)
    .map((l) => l.text)
    .join("\n");
}

/** The fenced code blocks of a markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const fence = /^(`{3,})([\w-]*)([^\n]*)\n([\s\S]*?)^\1[ \t]*$/gm;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    blocks.push({ lang: m[2] ?? "", info: (m[3] ?? "").trim(), code: m[4] ?? "" });
  }
  return blocks;
}

/** The fenced blocks under a heading of a markdown file (a path from the repository root). */
export function blocksUnder(file: string, heading: string): FencedBlock[] {
  return fencedBlocks(section(readFileSync(file, "utf8"), heading));
}

/** The markdown with fenced blocks and inline code blanked, so their text is not read as links. */
export function prose(markdown: string): string {
  return lines(markdown)
    .map((l) => (l.fenced ? "" : l.text.replace(/(`+)[^`]*?\1/g, "")))
    .join("\n");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a markdown file's headings make, with GitHub's -1, -2 for repeats. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const l of lines(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(l.text);
    if (l.fenced || !m) continue;
    const base = slug(m[1] ?? "");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}
