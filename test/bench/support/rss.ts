// Resident memory of a process and its descendants, read from /proc (Linux): the start
// script may serve in-process or hand off to a child, and the figure must cover both.
import { readdirSync, readFileSync } from "node:fs";

function children(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name sits in parentheses and may hold spaces: the parent pid follows it.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Bytes resident in `pid` and every process below it. */
export function treeRss(pid: number): number {
  let total = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.pop() ?? 0;
    total += rssOf(next);
    queue.push(...children(next));
  }
  return total;
}

/** Samples `treeRss(pid)` every `ms` until stopped; returns the samples in bytes. */
export function sampleRss(pid: number, ms: number): { stop: () => number[] } {
  const samples: number[] = [treeRss(pid)];
  const timer = setInterval(() => samples.push(treeRss(pid)), ms);
  return {
    stop: () => {
      clearInterval(timer);
      samples.push(treeRss(pid));
      return samples;
    },
  };
}
