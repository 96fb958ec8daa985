// Where a webhook may point. Only http(s), and never at this machine or its private
// networks (unless the operator opts in with FLOORLINE_WEBHOOK_ALLOW_PRIVATE=1): a webhook
// URL is chosen by whoever holds an admin key, and the server would otherwise make requests
// into networks the key holder cannot reach. Names are resolved and EVERY address checked,
// and the request is then sent to the address that was checked (see `pinnedLookup`), so a
// name that resolves differently a moment later (DNS rebinding) cannot redirect it. IPv6
// addresses are judged by the IPv4 address they carry, where they carry one.
import { BlockList, isIP } from "node:net";
import { env, type EnvSource } from "../env";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name to all its addresses (`dns.promises.lookup(host, {all: true})` in the server). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };
type TargetCheck = { ok: true; url: URL; address: ResolvedAddress } | { ok: false; reason: string };

const MAX_WEBHOOK_URL_LENGTH = 2048;

const blocked = new BlockList();
// IPv4: "this network", private, shared (CGNAT), loopback, link-local, IETF protocol
// assignments, documentation, benchmarking, multicast, reserved and broadcast.
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(net, prefix, "ipv4");
}
// IPv6: unspecified, loopback, unique local, link-local, site-local (deprecated), multicast,
// documentation, discard-only.
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["100::", 64],
] as const) {
  blocked.addSubnet(net, prefix, "ipv6");
}

/** The address without a zone (`fe80::1%eth0`). */
const withoutZone = (address: string) => address.replace(/%.*$/, "");

function expandIpv6(address: string): number[] | null {
  let text = withoutZone(address.toLowerCase());
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hextets.
  const dotted = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const parts = (s: string | undefined) => (s ? s.split(":").map((h) => Number.parseInt(h, 16)) : []);
  const left = parts(head);
  const right = parts(tail);
  const zeros = text.includes("::") ? 8 - left.length - right.length : 0;
  const all = [...left, ...Array(zeros).fill(0), ...right];
  return all.length === 8 && all.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffff) ? all : null;
}

/**
 * What an IPv6 address says about where it leads: the IPv4 addresses it carries (each must
 * pass the IPv4 rules), or "refuse" for a tunnel or translation prefix whose IPv4 end cannot
 * be read off the address (Teredo obfuscates its client, local-use NAT64 prefixes may be of
 * any length), so it could lead anywhere, this machine's networks included.
 */
function ipv6Carries(address: string): string[] | "refuse" | null {
  const expanded = expandIpv6(address);
  if (!expanded) return "refuse";
  const h = (i: number) => expanded[i] ?? 0;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => expanded.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && h(5) === 0xffff) return [v4(h(6), h(7))]; // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 4) && h(4) === 0xffff && h(5) === 0) return [v4(h(6), h(7))]; // ::ffff:0:a.b.c.d (translated)
  if (zeros(0, 6) && (h(6) !== 0 || h(7) > 1)) return [v4(h(6), h(7))]; // ::a.b.c.d (compatible, deprecated)
  if (h(0) === 0x64 && h(1) === 0xff9b) {
    // 64:ff9b::/96 is the well-known NAT64 prefix; the rest of 64:ff9b::/32 holds the
    // local-use prefix 64:ff9b:1::/48 and nothing public.
    return zeros(2, 6) ? [v4(h(6), h(7))] : "refuse";
  }
  if (h(0) === 0x2001 && h(1) === 0) return "refuse"; // Teredo, 2001::/32
  if (h(0) === 0x2002) return [v4(h(1), h(2))]; // 6to4
  if ((h(4) & 0xfcff) === 0 && h(5) === 0x5efe) return [v4(h(6), h(7))]; // ISATAP interface id
  return null;
}

/** True for an address a webhook must not reach without the opt-in. Non-addresses count as private. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family !== 6) return true;
  if (blocked.check(withoutZone(address), "ipv6")) return true;
  const carried = ipv6Carries(address);
  if (carried === "refuse") return true;
  return carried?.some((v4) => blocked.check(v4, "ipv4")) ?? false;
}

/** The URL's own rules, before any name is resolved: what the API checks when a webhook is saved. */
export function checkWebhookUrl(raw: string): UrlCheck {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, reason: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "must be an absolute http or https URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: "must use http or https" };
  }
  if (url.username || url.password) {
    return { ok: false, reason: "must not carry a user name or password; the signature authenticates deliveries" };
  }
  if (!url.hostname) return { ok: false, reason: "must name a host" };
  return { ok: true, url };
}

/** The host of a URL as an address literal (without IPv6 brackets), or null for a name. */
function literalAddress(url: URL): ResolvedAddress | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(host);
  return family === 0 ? null : { address: host, family: family as 4 | 6 };
}

/**
 * Resolves the URL's host and checks every address it resolves to. With `allowPrivate`
 * every address is accepted (the operator's loopback receivers, tests). The first address is
 * the one to connect to.
 */
export async function resolveWebhookTarget(
  raw: string,
  options: { resolve: Resolver; allowPrivate: boolean },
): Promise<TargetCheck> {
  const checked = checkWebhookUrl(raw);
  if (!checked.ok) return checked;
  const { url } = checked;
  const literal = literalAddress(url);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [literal];
  } else {
    try {
      addresses = await options.resolve(url.hostname);
    } catch {
      return { ok: false, reason: `has a host, ${url.hostname}, that does not resolve` };
    }
    if (addresses.length === 0) return { ok: false, reason: `has a host, ${url.hostname}, with no address` };
  }
  const [first] = addresses;
  if (!first) return { ok: false, reason: `has a host, ${url.hostname}, with no address` };
  if (!options.allowPrivate) {
    // The reason names no address: it reaches whoever saved the URL, and which private
    // address an internal name resolves to is a map of the server's networks.
    if (addresses.some((a) => isPrivateAddress(a.address))) {
      return {
        ok: false,
        reason: `points at a private, loopback, link-local or otherwise internal address; set FLOORLINE_WEBHOOK_ALLOW_PRIVATE=1 to allow it`,
      };
    }
  }
  return { ok: true, url, address: first };
}

/** Whether the environment opts in to private targets. */
export function allowPrivateTargets(source?: EnvSource): boolean {
  return env("FLOORLINE_WEBHOOK_ALLOW_PRIVATE", source) === "1";
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/**
 * A `lookup` for `http.request` that answers with the address already checked, whatever
 * the name would resolve to now. The URL keeps its host name, so TLS still verifies the
 * certificate against it and the Host header is unchanged.
 */
export function pinnedLookup(pinned: ResolvedAddress) {
  return (_hostname: string, options: { all?: boolean } | number | undefined, callback: LookupCallback) => {
    if (typeof options === "object" && options?.all) {
      callback(null, [{ address: pinned.address, family: pinned.family }]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
}
