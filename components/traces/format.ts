/** UTC, to the second, identical on server and client so hydration never disagrees. */
export function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

export function traceHref(traceId: string): string {
  return `/traces/${encodeURIComponent(traceId)}`;
}

export function actionSpaceHref(chainId: string): string {
  return `/chains/${encodeURIComponent(chainId)}/action-space`;
}
