/** UTC, to the second, identical on server and client so hydration never disagrees. */
export function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** The same instant on two short lines, for narrow table columns. */
export function formatTimeParts(iso: string): [date: string, time: string] {
  return [iso.slice(0, 10), `${iso.slice(11, 19)} UTC`];
}

export function traceHref(traceId: string): string {
  return `/traces/${encodeURIComponent(traceId)}`;
}

export function actionSpaceHref(chainId: string): string {
  return `/chains/${encodeURIComponent(chainId)}/action-space`;
}

/**
 * Page params arrive still percent-encoded (unlike route handlers'; vercel/next.js#48058), so
 * ids with spaces, slashes or non-ASCII need one decode. A value that is not valid
 * percent-encoding is taken as it is.
 */
export function pageParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
